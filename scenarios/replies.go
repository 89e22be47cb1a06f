package scenarios

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// placeholdersIn lists the {{name}}s of a template, left to right and not
// overlapping, where the name holds no brace: the matches of the regular
// expression \{\{[^{}]*\}\}. Scanned by hand, since every generated bundle
// is validated and the regular expression was most of its cost.
func placeholdersIn(tmpl string) []string {
	var out []string
	for i := 0; ; {
		at := strings.Index(tmpl[i:], "{{")
		if at < 0 {
			return out
		}
		i += at
		j := i + 2
		for j < len(tmpl) && tmpl[j] != '{' && tmpl[j] != '}' {
			j++
		}
		if strings.HasPrefix(tmpl[j:], "}}") {
			out = append(out, tmpl[i:j+2])
			i = j + 2
		} else {
			i++
		}
	}
}

// placeholders warns of a {{name}} a template uses that the stub does not
// replace: it reaches the implementation as written.
func (v *validator) placeholders(field, tmpl string) {
	for _, p := range placeholdersIn(tmpl) {
		if !slices.Contains(Placeholders, p) {
			v.warnf(field, "%s is not a placeholder (%s): it is sent as written", p, strings.Join(Placeholders, ", "))
		}
	}
}

// replyRule checks one of model.replies.
func (v *validator) replyRule(path string, r ReplyRule, ids map[string]string) {
	if v.nonEmpty(path+".id", r.ID) {
		v.unique(ids, path+".id", r.ID)
	}
	if f := r.When.Format; f != "" && !slices.Contains(ReplyFormats, f) {
		v.errorf(path+".when.format", "unknown format %q (want one of %s)", f, strings.Join(ReplyFormats, ", "))
	}
	if r.Reply == "" && len(r.JSON) == 0 && r.Tool == "" {
		v.errorf(path, "a reply rule needs reply, json or tool")
	}
	if r.ReplyNoAnchor != "" && r.Reply == "" {
		v.errorf(path+".reply_no_anchor", "given without reply")
	}
	if len(r.JSONNoAnchor) > 0 && len(r.JSON) == 0 {
		v.errorf(path+".json_no_anchor", "given without json")
	}
	v.placeholders(path+".reply", r.Reply)
	v.placeholders(path+".reply_no_anchor", r.ReplyNoAnchor)
	v.jsonTemplate(path+".json", r.JSON)
	v.jsonTemplate(path+".json_no_anchor", r.JSONNoAnchor)
}

// jsonTemplate checks a rule's json: an object, since it is what a JSON
// answer or a tool call's arguments hold.
func (v *validator) jsonTemplate(field string, raw json.RawMessage) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return
	}
	if t[0] != '{' {
		v.errorf(field, "must be a JSON object: it is the object a JSON answer or a tool call's arguments hold")
		return
	}
	v.placeholders(field, string(t))
}
