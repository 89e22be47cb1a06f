package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/internal/safefile"
)

// Files of the directory form. bundle.json holds format, meta and fleet; each
// other file holds one part. Missing .jsonl files mean an empty schedule.
const (
	FileBundle    = "bundle.json"
	FileMode      = "mode.json"
	FileRules     = "rules.json"
	FileModel     = "model.json"
	FileInbox     = "inbox.jsonl"
	FileApprovals = "approvals.jsonl"
	FileSignals   = "signals.jsonl"
	FileFaults    = "faults.jsonl"
)

// maxBundleFile bounds what the loader reads from one file, so a huge input
// gets an error instead of exhausting memory.
const maxBundleFile = 16 << 20

// Source remembers where each field of a loaded bundle came from, so
// problems can name a file and a line.
type Source struct {
	// Path is what was loaded: a directory or a single-JSON file.
	Path string
	// Dir is true for the directory form.
	Dir bool
	pos map[string]Pos
	// prefix goes before the file of every recorded position (rebase).
	prefix string
}

// Locate returns the position of a field path such as "inbox[2].at", falling
// back to the nearest enclosing path that has one.
func (s *Source) Locate(path string) Pos {
	if s == nil {
		return Pos{File: "bundle"}
	}
	for p := path; ; {
		if pos, ok := s.pos[p]; ok {
			pos.File = s.prefix + pos.File
			return pos
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			break
		}
		p = p[:i]
	}
	if s.Dir {
		return Pos{File: filepath.Join(s.Path, fileForPath(path))}
	}
	return Pos{File: s.Path}
}

func fileForPath(path string) string {
	top := path
	if i := strings.IndexAny(path, ".["); i >= 0 {
		top = path[:i]
	}
	switch top {
	case "mode":
		return FileMode
	case "rules", "rules_json":
		return FileRules
	case "model":
		return FileModel
	case "inbox":
		return FileInbox
	case "approvals":
		return FileApprovals
	case "signals":
		return FileSignals
	case "faults":
		return FileFaults
	}
	return FileBundle
}

// Load reads a bundle in either form: a directory holding bundle.json, or a
// single-JSON file. Problems that stop loading (bad JSON, wrong types,
// unknown fields) come back as Problems with positions; the bundle is then
// nil. Load does not validate meaning: call Validate for that.
func Load(path string) (*Bundle, *Source, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if info.IsDir() {
		return LoadDir(path)
	}
	data, err := readLimited(path)
	if err != nil {
		return nil, nil, err
	}
	return Parse(path, data)
}

// readLimited reads one bundle file: a regular file only, never a FIFO or
// a device, and at most maxBundleFile bytes (internal/safefile).
func readLimited(path string) ([]byte, error) {
	return safefile.ReadFile(path, maxBundleFile)
}

// Parse reads the single-JSON form from bytes; name is used in positions.
func Parse(name string, data []byte) (*Bundle, *Source, error) {
	src := &Source{Path: name, pos: map[string]Pos{}}
	var b Bundle
	if ps := decodeStrict(name, data, 1, "", reflect.TypeOf(b), src, &b); len(ps) > 0 {
		sortProblems(ps)
		return nil, src, ps
	}
	if ps := resolveRulesTexts(&b, src); len(ps) > 0 {
		sortProblems(ps)
		return nil, src, ps
	}
	return &b, src, nil
}

// LoadDir reads the directory form from disk.
func LoadDir(dir string) (*Bundle, *Source, error) {
	return loadDir(osFiles{}, dir)
}

// LoadFS reads the directory form from a file system, such as the published
// bundles embedded in the binary. dir is a slash-separated path in fsys.
func LoadFS(fsys fs.FS, dir string) (*Bundle, *Source, error) {
	return loadDir(fsFiles{fsys}, dir)
}

// fileReader abstracts where a bundle directory's files come from.
type fileReader interface {
	read(path string) ([]byte, error)
	join(dir, name string) string
}

type osFiles struct{}

func (osFiles) read(path string) ([]byte, error) { return readLimited(path) }
func (osFiles) join(dir, name string) string     { return filepath.Join(dir, name) }

type fsFiles struct{ fsys fs.FS }

func (f fsFiles) read(path string) ([]byte, error) {
	file, err := f.fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxBundleFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBundleFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxBundleFile)
	}
	return data, nil
}

func (fsFiles) join(dir, name string) string { return pathpkg.Join(dir, name) }

func loadDir(files fileReader, dir string) (*Bundle, *Source, error) {
	src := &Source{Path: dir, Dir: true, pos: map[string]Pos{}}
	if _, err := files.read(files.join(dir, FileBundle)); err != nil {
		msg := "missing: a bundle directory needs bundle.json"
		if !errors.Is(err, fs.ErrNotExist) {
			msg = err.Error()
		}
		return nil, src, Problems{{Pos: Pos{File: files.join(dir, FileBundle)}, Msg: msg}}
	}
	var (
		b     Bundle
		probs Problems
	)
	var head struct {
		Format string   `json:"format"`
		Meta   Meta     `json:"meta"`
		Fleet  []string `json:"fleet"`
	}
	probs = append(probs, decodeFile(files, dir, FileBundle, "", src, &head)...)
	b.Format, b.Meta, b.Fleet = head.Format, head.Meta, head.Fleet
	probs = append(probs, decodeFile(files, dir, FileMode, "mode", src, &b.Mode)...)
	rulesRaw, ps := readRules(files, dir, src, &b.Rules)
	probs = append(probs, ps...)
	probs = append(probs, decodeFile(files, dir, FileModel, "model", src, &b.Model)...)
	probs = append(probs, decodeLines(files, dir, FileInbox, "inbox", src, &b.Inbox)...)
	probs = append(probs, decodeLines(files, dir, FileApprovals, "approvals", src, &b.Approvals)...)
	probs = append(probs, decodeLines(files, dir, FileSignals, "signals", src, &b.Signals)...)
	probs = append(probs, decodeLines(files, dir, FileFaults, "faults", src, &b.Faults)...)
	if len(probs) == 0 {
		probs = resolveRulesTexts(&b, src)
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return nil, src, probs
	}
	if string(rulesRaw) != string(RulesBytes(b.Rules)) {
		b.RulesJSON = string(rulesRaw)
	}
	if b.Inbox == nil {
		b.Inbox = []Delivery{}
	}
	if b.Approvals == nil {
		b.Approvals = []Approval{}
	}
	if b.Signals == nil {
		b.Signals = []Signal{}
	}
	if b.Faults == nil {
		b.Faults = []Fault{}
	}
	return &b, src, nil
}

func decodeFile(files fileReader, dir, name, path string, src *Source, into any) Problems {
	_, ps := decodeFileRaw(files, dir, name, path, src, into)
	return ps
}

// decodeFileRaw is decodeFile that also returns the bytes it read.
func decodeFileRaw(files fileReader, dir, name, path string, src *Source, into any) ([]byte, Problems) {
	full := files.join(dir, name)
	data, err := files.read(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Problems{{Pos: Pos{File: full}, Field: path, Msg: "missing file"}}
		}
		return nil, Problems{{Pos: Pos{File: full}, Msg: err.Error()}}
	}
	return data, decodeStrict(full, data, 1, path, reflect.TypeOf(into).Elem(), src, into)
}

// readRules reads rules.json and keeps its bytes: they are what the
// implementation is given, so they must be UTF-8 to survive the single-JSON
// form unchanged.
func readRules(files fileReader, dir string, src *Source, into *[]Rule) ([]byte, Problems) {
	data, ps := decodeFileRaw(files, dir, FileRules, "rules", src, into)
	if data != nil && !utf8.Valid(data) {
		ps = append(ps, Problem{Pos: Pos{File: files.join(dir, FileRules), Line: invalidUTF8Line(data)}, Field: "rules", Msg: notUTF8})
	}
	return data, ps
}

// decodeLines reads a JSONL file into a slice, one element per non-blank line.
func decodeLines[T any](files fileReader, dir, name, path string, src *Source, into *[]T) Problems {
	full := files.join(dir, name)
	data, err := files.read(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return Problems{{Pos: Pos{File: full}, Msg: err.Error()}}
	}
	var probs Problems
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		elem := path + "[" + strconv.Itoa(len(*into)) + "]"
		var v T
		probs = append(probs, decodeStrict(full, line, i+1, elem, reflect.TypeOf(v), src, &v)...)
		*into = append(*into, v)
	}
	return probs
}

// decodeStrict decodes one JSON document, indexes the line of every field
// path, and reports syntax errors, type errors, duplicate keys and unknown
// fields with positions. A clean document is read in one pass (fastIndex);
// anything else, and anything the one pass doubts, by the positional reader,
// which alone words problems (D165).
func decodeStrict(file string, data []byte, firstLine int, base string, t reflect.Type, src *Source, into any) Problems {
	if ps := depthProblems(file, data, firstLine, base); ps != nil {
		return ps
	}
	if json.Valid(data) && fastIndex(file, data, firstLine, base, t, src) && json.Unmarshal(data, into) == nil {
		return nil
	}
	return decodePositional(file, data, firstLine, base, t, src, into)
}

// depthProblems bounds the nesting before either reader runs: both recurse
// and name every value's path (D65).
func depthProblems(file string, data []byte, firstLine int, base string) Problems {
	if err := jsondepth.Check(data, 0); err != nil {
		var de *jsondepth.Error
		line := firstLine
		if errors.As(err, &de) {
			line = firstLine + de.Line - 1
		}
		return Problems{{Pos: Pos{File: file, Line: line}, Field: base, Msg: err.Error()}}
	}
	return nil
}

// decodePositional is decodeStrict's reader of record: every token with its
// line, a generic copy checked beside the Go type, then the decode.
func decodePositional(file string, data []byte, firstLine int, base string, t reflect.Type, src *Source, into any) Problems {
	// Every token asks for its line, so the newlines are indexed once:
	// counting from the start each time is quadratic in the file size.
	var newlines []int64
	for i, c := range data {
		if c == '\n' {
			newlines = append(newlines, int64(i))
		}
	}
	lineAt := func(off int64) int {
		return sort.Search(len(newlines), func(i int) bool { return newlines[i] >= off }) + firstLine
	}
	var probs Problems
	ix := &indexer{dec: json.NewDecoder(bytes.NewReader(data)), file: file, lineAt: lineAt, src: src, cur: base}
	ix.dec.UseNumber()
	raw, err := ix.value(base)
	if err == nil {
		ix.cur = base
		if _, extra := ix.dec.Token(); extra != io.EOF {
			err = fmt.Errorf("unexpected data after the JSON value")
		}
	}
	if err != nil {
		var se *json.SyntaxError
		line := lineAt(ix.dec.InputOffset())
		msg := err.Error()
		if errors.As(err, &se) {
			line = lineAt(se.Offset)
			msg = "invalid JSON: " + se.Error()
		} else if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "invalid JSON: unexpected end of input"
		}
		return Problems{{Pos: Pos{File: file, Line: line}, Field: ix.cur, Msg: msg}}
	}
	probs = append(probs, ix.probs...)
	probs = append(probs, checkFields(raw, t, base, src)...)
	if len(probs) > 0 {
		return probs
	}
	if err := json.Unmarshal(data, into); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := base
			if te.Field != "" {
				field = joinPath(base, te.Field)
			}
			return Problems{{Pos: Pos{File: file, Line: lineAt(te.Offset)}, Field: field,
				Msg: fmt.Sprintf("wrong type: %s where %s is expected", te.Value, te.Type)}}
		}
		return Problems{{Pos: Pos{File: file, Line: firstLine}, Field: base, Msg: err.Error()}}
	}
	return nil
}

func joinPath(base, field string) string {
	if base == "" {
		return field
	}
	return base + "." + field
}

type indexer struct {
	dec    *json.Decoder
	file   string
	lineAt func(int64) int
	src    *Source
	probs  Problems
	// cur is the path being read, so a syntax error names where it struck:
	// a value's own path, or the enclosing one between values.
	cur string
}

// value reads one JSON value, records the line of its path and of every path
// below it, and returns it as a generic value for field checking.
func (ix *indexer) value(path string) (any, error) {
	ix.cur = path
	tok, err := ix.dec.Token()
	if err != nil {
		return nil, err
	}
	line := ix.lineAt(ix.dec.InputOffset() - 1)
	if _, seen := ix.src.pos[path]; !seen {
		ix.src.pos[path] = Pos{File: ix.file, Line: line}
	}
	switch tok {
	case json.Delim('{'):
		obj := map[string]any{}
		for ix.dec.More() {
			ix.cur = path
			kt, err := ix.dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			child := joinPath(path, key)
			keyLine := ix.lineAt(ix.dec.InputOffset() - 1)
			if _, dup := obj[key]; dup {
				ix.probs = append(ix.probs, Problem{Pos: Pos{File: ix.file, Line: keyLine}, Field: child, Msg: "duplicate key"})
			}
			ix.src.pos[child] = Pos{File: ix.file, Line: keyLine}
			v, err := ix.value(child)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		ix.cur = path
		if _, err := ix.dec.Token(); err != nil {
			return nil, err
		}
		return obj, nil
	case json.Delim('['):
		var arr []any
		for i := 0; ix.dec.More(); i++ {
			v, err := ix.value(path + "[" + strconv.Itoa(i) + "]")
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		ix.cur = path
		if _, err := ix.dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return tok, nil
}

var (
	rawMessageType = reflect.TypeOf(json.RawMessage{})
	conditionsType = reflect.TypeOf(Conditions{})
	// Walked at its first use, not at every start of amr.
	conditionTypes = sync.OnceValue(func() map[string]reflect.Type { return jsonFields(reflect.TypeOf(conditionFields{})) })
)

// checkFields walks a generic JSON value beside the Go type it will decode
// into and reports every object key the type does not have and every value
// of the wrong JSON type, with its full path. Unknown condition keys are
// allowed: they never match.
func checkFields(v any, t reflect.Type, path string, src *Source) Problems {
	if t == rawMessageType {
		return nil // any JSON value: a template, checked by Validate
	}
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	if msg := typeMismatch(v, t, nullable); msg != "" {
		return Problems{{Pos: src.Locate(path), Field: path, Msg: msg}}
	}
	if t.Kind() == reflect.Interface {
		return nil
	}
	switch val := v.(type) {
	case map[string]any:
		var ps Problems
		for _, k := range sortedKeys(val) {
			child := joinPath(path, k)
			var ft reflect.Type
			switch {
			case t == conditionsType:
				if ft = conditionTypes()[k]; ft == nil {
					continue
				}
			case t.Kind() == reflect.Map:
				ft = t.Elem()
			default:
				if ft = cachedFields(t)[k]; ft == nil {
					ps = append(ps, Problem{Pos: src.Locate(child), Field: child, Msg: "unknown field"})
					continue
				}
			}
			ps = append(ps, checkFields(val[k], ft, child, src)...)
		}
		return ps
	case []any:
		var ps Problems
		for i, e := range val {
			ps = append(ps, checkFields(e, t.Elem(), path+"["+strconv.Itoa(i)+"]", src)...)
		}
		return ps
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// typeMismatch describes a JSON value that cannot decode into t, or returns
// "". A null decodes only into what may be absent: a pointer, list or map.
func typeMismatch(v any, t reflect.Type, nullable bool) string {
	want := describeType(t)
	got := ""
	switch val := v.(type) {
	case nil:
		if nullable || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Interface {
			return ""
		}
		got = "null"
	case string:
		if t.Kind() == reflect.String || t.Kind() == reflect.Interface {
			return ""
		}
		got = "a string"
	case bool:
		if t.Kind() == reflect.Bool || t.Kind() == reflect.Interface {
			return ""
		}
		got = "true or false"
	case json.Number:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if _, err := strconv.ParseInt(val.String(), 10, t.Bits()); err == nil {
				return ""
			}
			return fmt.Sprintf("wrong type: %s where %s is expected", val, want)
		case reflect.Float32, reflect.Float64, reflect.Interface:
			return ""
		}
		got = "a number"
	case map[string]any:
		if t.Kind() == reflect.Struct || t.Kind() == reflect.Map || t.Kind() == reflect.Interface {
			return ""
		}
		got = "an object"
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Interface {
			return ""
		}
		got = "a list"
	default:
		return ""
	}
	return fmt.Sprintf("wrong type: %s where %s is expected", got, want)
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return t.String()
}

func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// SaveDir writes the directory form. Existing bundle files in dir are
// replaced; empty schedules are written as empty files so a person sees
// every part. rules.json gets the bundle's rules bytes unchanged (RulesFile).
func SaveDir(b *Bundle, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	head := struct {
		Format string   `json:"format"`
		Meta   Meta     `json:"meta"`
		Fleet  []string `json:"fleet"`
	}{b.Format, b.Meta, b.Fleet}
	writes := []struct {
		name string
		data []byte
		err  error
	}{}
	add := func(name string, data []byte, err error) {
		writes = append(writes, struct {
			name string
			data []byte
			err  error
		}{name, data, err})
	}
	d, err := indentJSON(head)
	add(FileBundle, d, err)
	d, err = indentJSON(b.Mode)
	add(FileMode, d, err)
	add(FileRules, b.RulesFile(), nil)
	d, err = indentJSON(b.Model)
	add(FileModel, d, err)
	d, err = jsonLines(b.Inbox)
	add(FileInbox, d, err)
	d, err = jsonLines(b.Approvals)
	add(FileApprovals, d, err)
	d, err = jsonLines(b.Signals)
	add(FileSignals, d, err)
	d, err = jsonLines(b.WithRulesTexts().Faults)
	add(FileFaults, d, err)
	for _, w := range writes {
		if w.err != nil {
			return fmt.Errorf("%s: %w", w.name, w.err)
		}
		if err := os.WriteFile(filepath.Join(dir, w.name), w.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// SaveJSON writes the single-JSON form to a file.
func SaveJSON(b *Bundle, path string) error {
	data, err := b.MarshalIndent()
	if err != nil {
		return err
	}
	// Atomic: a corpus or an output read while amr writes it, or left by
	// an interrupted amr, holds the whole bundle or none of it.
	return safefile.WriteFile(path, data, 0o644)
}

func indentJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return buf.Bytes(), err
}

func jsonLines[T any](items []T) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
