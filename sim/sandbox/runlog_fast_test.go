package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/seeds"
)

// agreeOnLine decodes line both ways and fails t when the hand decoder
// takes a line and makes anything but what encoding/json makes of it. It
// reports whether the hand decoder took the line.
func agreeOnLine(t interface {
	Helper()
	Fatalf(string, ...any)
}, line []byte, owned bool) bool {
	t.Helper()
	fo, _, ok := decodeObject(line, nil)
	if !ok {
		return false
	}
	so, _, _ := decodeObject(line, nil)
	fo.raw, fo.owned = line, owned
	so.raw, so.owned = line, owned
	got, took := fastLogRecord(&fo)
	want := slowLogRecord(&so)
	if !took {
		return false
	}
	if so.err != nil {
		t.Fatalf("%s: the hand decoder took a line encoding/json refuses (%v)", line, so.err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nhand   %#v\nstdlib %#v", line, got, want)
	}
	return true
}

// Records as the harness writes them, through json.Marshal: the hand
// decoder takes every one and makes the record encoding/json makes.
func TestFastLogRecordTakesMarshalledRecords(t *testing.T) {
	text := rapid.StringOf(rapid.SampledFrom([]rune("aZ09 _-\"\\/<>&\n\t\u00e9\u2028\U0001F600{}[]:,\x01\x7f")))
	num := rapid.IntRange(-1<<40, 1<<40)
	rapid.Check(t, func(t *rapid.T) {
		r := LogRecord{
			Kind: rapid.SampledFrom([]string{LogStart, LogTickEnd, LogCrash, LogRewrite, "x\"y"}).Draw(t, "kind"),
			Tick: num.Draw(t, "tick"), ID: text.Draw(t, "id"), Detail: text.Draw(t, "detail"),
			TornText: text.Draw(t, "torn_text"), Line: num.Draw(t, "line"), Forced: rapid.Bool().Draw(t, "forced"),
			Writes: rapid.SliceOf(text).Draw(t, "writes"),
		}
		if rapid.Bool().Draw(t, "rewrite") {
			r.LogRewriteInfo = &LogRewriteInfo{File: text.Draw(t, "file"), Lost: rapid.SliceOf(text).Draw(t, "lost"),
				Fresh: num.Draw(t, "fresh"), Kept: num.Draw(t, "kept")}
		}
		start := func() *LogStartInfo {
			if r.LogStartInfo == nil {
				r.LogStartInfo = &LogStartInfo{Bundle: text.Draw(t, "bundle"), Impl: text.Draw(t, "impl")}
			}
			return r.LogStartInfo
		}
		if rapid.Bool().Draw(t, "seeds") {
			s := seeds.Seed(rapid.Uint64().Draw(t, "seed"))
			start().Engine, start().Run = &s, &s
		}
		if rapid.Bool().Draw(t, "stamped") {
			n := num.Draw(t, "stamped")
			r.Stamped = &n
		}
		if rapid.Bool().Draw(t, "maps") {
			r.Lines = rapid.MapOf(text, num).Draw(t, "lines")
			start().Params = rapid.MapOf(text, text).Draw(t, "params")
		}
		if rapid.Bool().Draw(t, "edit") {
			e := &StateEdit{Hash: text.Draw(t, "hash")}
			for i := rapid.IntRange(0, 4).Draw(t, "hunks"); i > 0; i-- {
				e.Hunks = append(e.Hunks, Hunk{At: num.Draw(t, "at"), Del: num.Draw(t, "del"), Text: text.Draw(t, "text")})
			}
			r.StateEdit = e
		}
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !agreeOnLine(t, line, rapid.Bool().Draw(t, "owned")) {
			t.Fatalf("%s: the hand decoder declined a line the harness writes", line)
		}
	})
}

// Lines near the harness's spelling and past it (keys in another case or
// unknown, duplicates, null, fractions, exponents, overflow, escapes of
// every kind, surrogates, bytes that are not UTF-8, white space, wrong
// types): whatever the hand decoder takes, it makes what encoding/json
// makes, and what it declines encoding/json decides.
func TestFastLogRecordAgreesOnHostileLines(t *testing.T) {
	keys := rapid.SampledFrom([]string{"kind", "tick", "Kind", "TICK", "id", "line", "lines", "writes", "lost", "params",
		"state_edit", "state", "stamped", "scheduled", "forced", "engine_seed", "run_seed", "detail", "hunks", "hash", "x", "kind\\u0000",
		"bundle", "file", "fresh", "kept"})
	strs := rapid.SampledFrom([]string{`""`, `"a"`, `"tick_end"`, `"a\"b"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\u0000"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\u00"`, `"\x"`, "\"\xff\"", "\"\xc3\xa9\"", "\"a\xe2\x80\"", `"<&>"`, `"\uD800\uDC00"`, `"12345"`})
	nums := rapid.SampledFrom([]string{`0`, `-0`, `7`, `-12`, `1.0`, `1e2`, `1E+2`, `01`, `9223372036854775807`, `9223372036854775808`,
		`-9223372036854775809`, `1099511627777`, `null`, `true`, `false`, ` 3 `})
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		switch k := rapid.IntRange(0, 6).Draw(t, "shape"); {
		case k <= 1 || depth > 2:
			return strs.Draw(t, "str")
		case k == 2:
			return nums.Draw(t, "num")
		case k == 3:
			var items []string
			for i := rapid.IntRange(0, 3).Draw(t, "items"); i > 0; i-- {
				items = append(items, value(t, depth+1))
			}
			return "[" + strings.Join(items, rapid.SampledFrom([]string{",", " , "}).Draw(t, "comma")) + "]"
		case k == 4:
			return `{"hunks":[{"at":` + nums.Draw(t, "at") + `,"del":` + nums.Draw(t, "del") + `,"text":` + strs.Draw(t, "text") + `}],"hash":` + strs.Draw(t, "hash") + `}`
		default:
			var ms []string
			for i := rapid.IntRange(0, 3).Draw(t, "members"); i > 0; i-- {
				ms = append(ms, fmt.Sprintf("%s: %s", strs.Draw(t, "key"), value(t, depth+1)))
			}
			if depth > 0 && rapid.Bool().Draw(t, "hunk") {
				ms = append(ms, `"at":1`, `"text":"x"`)
			}
			return "{" + strings.Join(ms, ",") + "}"
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		var ms []string
		for i := rapid.IntRange(0, 6).Draw(t, "n"); i > 0; i-- {
			ms = append(ms, fmt.Sprintf(`"%s":%s`, keys.Draw(t, "key"), value(t, 0)))
		}
		agreeOnLine(t, []byte("{"+strings.Join(ms, ",")+"}"), rapid.Bool().Draw(t, "owned"))
	})
}

// Each decline, one line each: the hand decoder leaves them all to
// encoding/json, and what the harness writes it takes.
func TestFastLogRecordDeclines(t *testing.T) {
	for _, line := range []string{
		`{"Kind":"end","tick":1}`, `{"kind":"end","tick":1.0}`, `{"kind":"end","tick":1e0}`, `{"kind":null,"tick":1}`,
		`{"kind":"end","tick":1,"x":1}`, `{"kind":"end","tick":1,"state":{}}`, `{"kind":"end","tick":1,"lines":{"a":1,"a":2}}`,
		`{"kind":"end","tick":1,"writes":null}`, `{"kind":"\ud800","tick":1}`, "{\"kind\":\"\xff\",\"tick\":1}",
		`{"kind":"end","tick":99999999999999999999}`, `{"kind":"end","tick":1,"state_edit":{"hunks":[],"Hash":"h"}}`,
		`{"kind":"end","tick":1,"state_edit":{"hunks":[{"at":1,"at":2}],"hash":"h"}}`, `{"kind":"end","tick":1,"engine_seed":null}`,
		`{"kind":"end","tick":1,"engine_seed":"-1"}`, `{"kind":"end","tick":"1"}`, `{"kind":"end","kind":"start","tick":1}`,
	} {
		assert.False(t, agreeOnLine(t, []byte(line), false), line)
	}
	for _, line := range []string{
		`{"kind":"end","tick":1}`, `{"kind":"tick_end","tick":3,"writes":["drafts.jsonl","state.json"],"lines":{"drafts.jsonl":2},"state_edit":{"hunks":[{"at":1,"del":2,"text":"{\"a\":\"\\u00e9\"}"}],"hash":"h"}}`,
		`{"kind":"start","tick":0,"engine_seed":"18446744073709551615","run_seed":7,"params":{"a":"b"}}`, ` { "kind" : "end" , "tick" : 1 } `,
	} {
		assert.True(t, agreeOnLine(t, []byte(line), true), line)
	}
}

// The run logs of the checker's cases, and any others named in
// AMR_RUNLOGS (a list of paths): every line the hand decoder takes it
// makes as encoding/json does, and it takes nearly every line.
func TestFastLogRecordOverRunLogs(t *testing.T) {
	paths, err := filepath.Glob("../../checker/testdata/golden/*/*/run.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	if more := os.Getenv("AMR_RUNLOGS"); more != "" {
		paths = append(paths, filepath.SplitList(more)...)
	}
	lines, took := 0, 0
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			lines++
			if agreeOnLine(t, sc.Bytes(), false) {
				took++
			}
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	t.Logf("%d logs, %d lines, %d taken by the hand decoder", len(paths), lines, took)
	assert.Greater(t, took, lines*9/10, "the hand decoder takes the lines the harness writes")
}

// A state edit member read again is what json.Unmarshal makes of it.
func TestDecodeStateEditAgreesWithUnmarshal(t *testing.T) {
	for _, m := range []string{`{"hunks":[{"at":1,"del":2,"text":"{\"a\":1}"}],"hash":"h"}`, `{"hunks":null,"hash":"h"}`, `null`,
		`{"hunks":[],"hash":"h"}`, `{"Hunks":[{"at":1}],"hash":"h"}`, `{"hunks":[{"at":1.5}],"hash":"h"}`, `{"hunks":[{"at":1,"text":"\ud800"}]}`, `[1]`} {
		var got, want StateEdit
		gotOK := decodeStateEdit([]byte(m), &got)
		wantOK := json.Unmarshal([]byte(m), &want) == nil
		assert.Equal(t, wantOK, gotOK, m)
		if wantOK {
			assert.Equal(t, want, got, m)
		}
	}
}

// The start and rewrite fields are behind pointers so that every other
// record does not carry them; a field added inline shows here.
func TestLogRecordSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the size is a 64-bit machine's")
	}
	if n := unsafe.Sizeof(LogRecord{}); n != 400 {
		t.Fatalf("LogRecord is %d bytes, want 400", n)
	}
}
