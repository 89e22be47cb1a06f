// Package report owns the HTML report: one self-contained static page built
// from the artifacts that amr run --out, amr fuzz --out and amr replay --out
// keep. It reads report.json files into a scoreboard (implementations ×
// levels, with drafting origin, runs, forced advances and effort context),
// classifies every FAIL with the failure taxonomy of spec §5, turns each
// kept run into lanes over virtual ticks and a message flow per work item,
// shows a fuzz counterexample's raw and shrunk bundles side by side, and
// finds where two runs' artifacts first differ.
//
// The page embeds the same data it renders as JSON (Page), so a reader can
// take the numbers out of it; the same inputs give the same bytes.
package report
