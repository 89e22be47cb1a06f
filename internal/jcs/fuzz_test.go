package jcs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCanonicalize checks that any input either fails with a SyntaxError or
// gives output that is valid JSON for encoding/json, holds the same value,
// and canonicalizes to itself. The committed corpus is in
// testdata/fuzz/FuzzCanonicalize.
func FuzzCanonicalize(f *testing.F) {
	for _, name := range []string{"arrays", "french", "structures", "unicode", "values", "weird"} {
		data, err := os.ReadFile(filepath.Join("testdata", "input", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Canonicalize(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a SyntaxError: %v", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted input encoding/json calls invalid: %q", data)
		}
		again, err := Canonicalize(out)
		if err != nil {
			t.Fatalf("output does not canonicalize: %v\noutput: %q", err, out)
		}
		if string(again) != string(out) {
			t.Fatalf("not idempotent:\n first: %q\nsecond: %q", out, again)
		}
		var in, back any
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("encoding/json cannot read accepted input: %v", err)
		}
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("encoding/json cannot read output: %v", err)
		}
		if !equalJSON(in, back) {
			t.Fatalf("value changed:\n input: %q\noutput: %q", data, out)
		}
	})
}

// equalJSON compares decoded JSON values; numbers compare as doubles, so
// -0 equals 0.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
