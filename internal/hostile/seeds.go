package hostile

import "bytes"

// Seeds are the hostile shapes every fuzz target of a parser reading
// outside input starts from, besides its own well-formed seeds: nesting
// far past the bound, unbalanced brackets, brackets inside strings, NUL
// bytes and invalid UTF-8, a byte order mark, blank and CRLF lines.
func Seeds() [][]byte {
	return [][]byte{
		bytes.Repeat([]byte("["), 100_000),
		bytes.Repeat([]byte(`{"a":`), 20_000),
		[]byte(`{"a":"[[[[{{{{"}`),
		[]byte("\x00\xff\xfe{\n"),
		[]byte("\xEF\xBB\xBF{}\n"),
		[]byte("\n\n \r\n{}\r\n"),
		[]byte(`{"format":` + string(bytes.Repeat([]byte("["), 200)) + `}`),
		[]byte("]]]}}}"),
	}
}
