// Package hostile holds amr's hostile-input corpus: a table of inputs a
// hostile user or a hostile implementation would hand amr (FIFOs and
// devices where files belong, bundles nested 10^5 deep, files far over any
// bound, garbage, signals in every phase, a hostile HTTP client of the stub
// model), each with the command it is given to, the exit code and message
// amr must answer with, and no process or temporary file left behind. The
// table is in the package's tests; docs/hostile.md is generated from it.
package hostile
