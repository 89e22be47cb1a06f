package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// What the harness wrote is known from the bundle and the run log, never
// taken from the sandbox on trust (decision D30). With a run log every
// harness line is in the log, and the sandbox is compared with it line by
// line. Without one the bundle bounds what any harness could have written:
// every line must be one the bundle explains, and what the bundle proves was
// written must be there. Each disagreement is an L0.harness-files finding;
// the other invariants judge the inputs as the harness wrote them.

// harnessDiff is one disagreement between a harness-owned file and what the
// harness wrote.
type harnessDiff struct {
	tick     int
	evidence []string
	detail   string
}

func (f *facts) disagree(tick int, detail string, evidence ...string) {
	f.diffs = append(f.diffs, harnessDiff{tick: tick, evidence: evidence, detail: detail})
}

// ref is a signal's evidence: its line, or the bundle's schedule when the
// checker knows it only from there.
func (s *signal) ref() string {
	if s.line > 0 {
		return ref(sandbox.Signals, s.line)
	}
	return "bundle:signals/" + s.SignalID
}

// --- with a run log ---

// written is one line the run log says the harness wrote.
type written[T comparable] struct {
	rec  T
	tick int
	src  int // the run log record's index: its reference is made only for a finding
}

// lineTick is the tick a harness line carries: the record's own, or the
// one it was stamped with when it fired late under stamp_scheduled (D72).
// Either way the line took effect when the record says it was written.
func lineTick(r *sandbox.LogRecord) int {
	if r.Stamped != nil {
		return *r.Stamped
	}
	return r.Tick
}

// harnessFromLog builds the harness's inputs from the run log's records and
// compares each harness JSONL file with them.
func (f *facts) harnessFromLog(file func(string) []byte, log []sandbox.LogRecord) {
	// Counted first, so that each kind's records and maps are made once,
	// at their size.
	var nDeliver, nApprove, nSignal int
	for i := range log {
		switch log[i].Kind {
		case sandbox.LogDeliver, sandbox.LogDuplicate:
			nDeliver++
		case sandbox.LogApprove, sandbox.LogRedeliver:
			nApprove++
		case sandbox.LogSignal:
			nSignal++
		}
	}
	inbox := make(map[int]written[sandbox.Message], nDeliver)
	apps := make(map[int]written[sandbox.ApprovalRecord], nApprove)
	sigs := make(map[int]written[sandbox.SignalRecord], nSignal)
	fired := make(map[string]sandbox.ApprovalRecord, nApprove)
	delivered := make(map[string]bool, nDeliver)
	messages := make([]*message, 0, nDeliver)
	msgs := make([]message, 0, nDeliver)
	f.approvals = make([]*approval, 0, nApprove)
	approvals := make([]approval, 0, nApprove)
	signals := make([]signal, 0, nSignal)
	for i := range log {
		r := &log[i]
		// The record's reference is made only for the records that keep one:
		// most records are tick ends.
		at := stamp{r.Tick, seqHarness}
		switch r.Kind {
		case sandbox.LogDeliver, sandbox.LogDuplicate:
			d, ok := f.bx.Message(r.ID)
			if !ok {
				continue
			}
			rec := sandbox.Message(d)
			if r.Line > 0 {
				inbox[r.Line] = written[sandbox.Message]{rec, r.Tick, i}
			}
			if !delivered[d.ID] {
				delivered[d.ID] = true
				msgs = append(msgs, message{Message: rec, line: max(r.Line, 0), at: at})
				messages = append(messages, &msgs[len(msgs)-1])
			}
		case sandbox.LogApprove, sandbox.LogRedeliver:
			rec := sandbox.ApprovalRecord{ApprovalID: r.ID, DraftID: r.DraftID, ContentHash: r.ContentHash,
				Decision: r.Decision, DecidedAt: lineTick(r)}
			if r.Kind == sandbox.LogRedeliver {
				first, ok := fired[r.ID]
				if !ok {
					continue
				}
				rec = first
			} else if _, ok := fired[r.ID]; !ok {
				fired[r.ID] = rec
			}
			if r.Line > 0 {
				apps[r.Line] = written[sandbox.ApprovalRecord]{rec, r.Tick, i}
			}
			approvals = append(approvals, approval{ApprovalRecord: rec, line: max(r.Line, 0), at: at})
			f.approvals = append(f.approvals, &approvals[len(approvals)-1])
		case sandbox.LogSignal:
			rec := sandbox.SignalRecord{SignalID: r.ID, SignalType: r.SignalType, Target: r.Target, At: lineTick(r)}
			if r.Line > 0 {
				sigs[r.Line] = written[sandbox.SignalRecord]{rec, r.Tick, i}
			}
			signals = append(signals, signal{SignalRecord: rec, line: max(r.Line, 0), at: at})
			f.addSignal(&signals[len(signals)-1])
		}
	}
	lines, errs := f.parsed.Inbox(file(sandbox.Inbox))
	compareWritten(f, sandbox.Inbox, inbox, lines, errs)
	alines, aerrs := f.parsed.Approvals(file(sandbox.Approvals))
	compareWritten(f, sandbox.Approvals, apps, alines, aerrs)
	slines, serrs := f.parsed.Signals(file(sandbox.Signals))
	compareWritten(f, sandbox.Signals, sigs, slines, serrs)
	f.setMessages(messages)
}

// compareWritten reports every line of a harness file that is not the line
// the run log says the harness wrote there: changed, unreadable, missing,
// or never written at all.
func compareWritten[T comparable](f *facts, name string, want map[int]written[T], got []sandbox.Line[T], bad []sandbox.LineError) {
	have := map[int]T{}
	for _, l := range got {
		have[l.N] = l.Rec
	}
	unreadable := map[int]bool{}
	for _, e := range bad {
		unreadable[e.Line] = true
	}
	for _, n := range sortedLines(want) {
		w := want[n]
		rec, ok := have[n]
		if ok && !unreadable[n] && rec == w.rec {
			continue
		}
		at, src := ref(name, n), runLogRef(w.src)
		switch {
		case unreadable[n]:
			f.disagree(w.tick, fmt.Sprintf("%s is not a valid record; the harness wrote %s there at tick %d (%s).", at, describe(w.rec), w.tick, src), at, src)
		case !ok:
			f.disagree(w.tick, fmt.Sprintf("%s has no line %d; the harness wrote %s there at tick %d (%s).", name, n, describe(w.rec), w.tick, src), src)
		case idOf(rec) != idOf(w.rec):
			f.disagree(w.tick, fmt.Sprintf("%s holds %s, but the harness wrote %s there at tick %d (%s).", at, describe(rec), describe(w.rec), w.tick, src), at, src)
		default:
			f.disagree(w.tick, fmt.Sprintf("%s changes %s as the harness wrote it at tick %d (%s): %s.", at, describe(w.rec), w.tick, src, fieldDiff(rec, w.rec)), at, src)
		}
	}
	var extra []int
	for n := range have {
		if _, ok := want[n]; !ok {
			extra = append(extra, n)
		}
	}
	for n := range unreadable {
		if _, ok := want[n]; !ok {
			extra = append(extra, n)
		}
	}
	sort.Ints(extra)
	for _, n := range extra {
		what := "an unreadable line"
		if rec, ok := have[n]; ok {
			what = describe(rec)
		}
		f.disagree(f.tl.last(), fmt.Sprintf("%s, %s, was not written by the harness: the run log records no line %d of %s.", ref(name, n), what, n, name), ref(name, n))
	}
}

func sortedLines[T any](m map[int]T) []int {
	out := make([]int, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// describe names a harness record in a sentence.
func describe(rec any) string {
	switch r := rec.(type) {
	case sandbox.Message:
		return "the delivery of message " + r.ID
	case sandbox.ApprovalRecord:
		return fmt.Sprintf("approval %s (%s of draft %s)", r.ApprovalID, r.Decision, r.DraftID)
	case sandbox.SignalRecord:
		return fmt.Sprintf("signal %s (%s of %s)", r.SignalID, r.SignalType, r.Target)
	}
	return "a line"
}

// idOf is the id a harness record is known by.
func idOf(rec any) string {
	switch r := rec.(type) {
	case sandbox.Message:
		return r.ID
	case sandbox.ApprovalRecord:
		return r.ApprovalID
	case sandbox.SignalRecord:
		return r.SignalID
	}
	return ""
}

// fieldDiff lists the JSON fields in which got differs from want.
func fieldDiff(got, want any) string {
	g, w := jsonFields(got), jsonFields(want)
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if !bytes.Equal(g[k], w[k]) {
			parts = append(parts, fmt.Sprintf("%s is %s, the harness wrote %s", k, g[k], w[k]))
		}
	}
	if len(parts) == 0 {
		return "its fields differ"
	}
	return strings.Join(parts, "; ")
}

func jsonFields(v any) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	data, err := sandbox.MarshalLine(v)
	if err == nil {
		_ = json.Unmarshal(data, &out)
	}
	return out
}

// --- without a run log ---

// bundleReading holds what judging harness lines against the bundle needs
// from the implementation's logs, in file order: every declaration of every
// draft id and the admissions of every message.
type bundleReading struct {
	f            *facts
	declarations map[string][]*draft     // draft id -> its declarations
	admissions   map[string][]*auditLine // message id -> its admission records
	admittedWork map[string]bool         // work ids some admission record names
	approvals    map[string]scenarios.Approval
	signals      map[string]scenarios.Signal
}

func (f *facts) bundleReading() *bundleReading {
	br := &bundleReading{f: f, declarations: map[string][]*draft{}, admissions: map[string][]*auditLine{},
		admittedWork: map[string]bool{}, approvals: map[string]scenarios.Approval{}, signals: map[string]scenarios.Signal{}}
	for _, a := range f.b.Approvals {
		if _, ok := br.approvals[a.ID]; !ok {
			br.approvals[a.ID] = a
		}
	}
	for _, s := range f.b.Signals {
		if _, ok := br.signals[s.ID]; !ok {
			br.signals[s.ID] = s
		}
	}
	for _, d := range f.drafts {
		br.declarations[d.DraftID] = append(br.declarations[d.DraftID], d)
	}
	for _, a := range f.audit {
		if a.Event == sandbox.EventAdmission {
			br.admissions[a.MessageID] = append(br.admissions[a.MessageID], a)
			br.admittedWork[a.WorkID] = true
		}
	}
	return br
}

// declared returns the declarations of a draft id made by tick t for a
// work item the match names.
func (br *bundleReading) declared(id string, m scenarios.Match, t int) []*draft {
	var out []*draft
	for _, d := range br.declarations[id] {
		if d.at.tick <= t && br.names(m, d.WorkID, t) {
			out = append(out, d)
		}
	}
	return out
}

// names reports whether a bundle match could name work item w at tick t:
// the work id it gives, or a work item admitted for its message by t. When
// no admission record names the message, another harness may have bound it
// as the checker links replies (D32): to a work item no admission names,
// drafted in the message's conversation after the message arrived. That
// only widens which lines are explained; a line the harness must have
// written is still required only through an admission (bound).
func (br *bundleReading) names(m scenarios.Match, w string, t int) bool {
	if m.WorkID != "" {
		return m.WorkID == w
	}
	if m.MessageID == "" {
		return false
	}
	for _, a := range br.admissions[m.MessageID] {
		if a.WorkID == w && a.at.tick <= t {
			return true
		}
	}
	if len(br.admissions[m.MessageID]) > 0 || br.admittedWork[w] {
		return false
	}
	msg, ok := br.f.msgByID[m.MessageID]
	if !ok {
		return false
	}
	for _, ds := range br.declarations {
		for _, d := range ds {
			if d.WorkID == w && d.ConversationID == msg.ConversationID && d.at.tick >= msg.at.tick && d.at.tick <= t {
				return true
			}
		}
	}
	return false
}

// bound returns the work item the harness binds a match to, and the tick
// from which it could: the given work id at once (-1), or the work item of
// the message's first admission record from that record's tick.
func (br *bundleReading) bound(m scenarios.Match) (string, int, bool) {
	if m.WorkID != "" {
		return m.WorkID, -1, true
	}
	if as := br.admissions[m.MessageID]; m.MessageID != "" && len(as) > 0 {
		return as[0].WorkID, as[0].at.tick, true
	}
	return "", 0, false
}

// firedBy returns the tick by which a harness must have written an item
// due at visible tick v that became bindable at tick k: v itself when it was
// bindable before v, else the first visited tick after k, since the
// harness fires before the implementation writes.
func (br *bundleReading) firedBy(v, k int) (int, bool) {
	if k < v {
		return v, true
	}
	return br.f.tl.deadline(k, 1)
}

// scheduledTick checks a line's own tick against its scheduled one: no
// earlier than its visible tick, no later than the horizon. It returns the
// problem, or "".
func (br *bundleReading) scheduledTick(at, scheduled int) string {
	v, ok := br.f.tl.visible(scheduled)
	switch {
	case !ok:
		return fmt.Sprintf("the bundle schedules it at tick %d, after the horizon", scheduled)
	case at < v:
		return fmt.Sprintf("it is stamped tick %d, before its scheduled tick %d", at, v)
	case at > br.f.tl.last():
		return fmt.Sprintf("it is stamped tick %d, after the last tick %d", at, br.f.tl.last())
	}
	return ""
}

// harnessFromBundle judges the harness JSONL files against the bundle and
// builds the inputs from what it explains.
func (f *facts) harnessFromBundle(file func(string) []byte) {
	br := f.bundleReading()
	f.setMessages(f.inboxFromBundle(file(sandbox.Inbox)))
	br.approvalsFromBundle(file(sandbox.Approvals))
	br.signalsFromBundle(file(sandbox.Signals))
}

// inboxFromBundle keeps the inbox lines that deliver a bundle message, with
// the bundle's content, and reports every other line, every changed one,
// and every delivery or duplicate the bundle makes that is not there. A line
// stamped later than its message's tick is a late delivery and places the
// message there; more copies than the bundle's duplicates are deliveries
// at least once (D35).
func (f *facts) inboxFromBundle(data []byte) []*message {
	lines, errs := f.parsed.Inbox(data)
	for _, e := range errs {
		f.disagree(f.tl.last(), fmt.Sprintf("%s is not a delivery the harness wrote: %s.", ref(sandbox.Inbox, e.Line), e.Msg), ref(sandbox.Inbox, e.Line))
	}
	count := map[string]int{}
	var out []*message
	for _, l := range lines {
		at := ref(sandbox.Inbox, l.N)
		d, ok := f.bx.Message(l.Rec.ID)
		if !ok {
			f.disagree(l.Rec.At, fmt.Sprintf("%s delivers message %s, which the bundle does not schedule.", at, l.Rec.ID), at)
			continue
		}
		want := sandbox.Message(d)
		arrived := d.At
		switch late := f.lateDelivery(l.Rec, want); {
		case late:
			arrived = l.Rec.At
		case l.Rec != want:
			f.disagree(l.Rec.At, fmt.Sprintf("%s is not message %s as the bundle delivers it: %s.", at, d.ID,
				strings.ReplaceAll(fieldDiff(l.Rec, want), "the harness wrote", "the bundle has")), at)
		}
		count[d.ID]++
		if count[d.ID] == 1 {
			v, ok := f.tl.visible(arrived)
			if !ok {
				v = arrived
			}
			out = append(out, &message{Message: want, line: l.N, at: stamp{v, seqHarness}})
		}
	}
	seen := map[string]bool{}
	for _, d := range f.b.Inbox {
		copies := f.deliveries(d)
		if seen[d.ID] || copies == 0 || count[d.ID] >= copies {
			seen[d.ID] = true
			continue
		}
		seen[d.ID] = true
		v, _ := f.tl.visible(d.At)
		if count[d.ID] == 0 {
			f.disagree(v, fmt.Sprintf("%s has no line for message %s, which the bundle delivers at tick %d.", sandbox.Inbox, d.ID, v), "bundle:inbox/"+d.ID)
			continue
		}
		f.disagree(f.tl.last(), fmt.Sprintf("%s has %d lines for message %s; the bundle delivers it %d times by the horizon (duplicates included).",
			sandbox.Inbox, count[d.ID], d.ID, copies), "bundle:inbox/"+d.ID)
	}
	return out
}

// lateDelivery reports whether an inbox line is the bundle's message as
// another harness may stamp it: every field the bundle's but at, which is
// a later tick than scheduled and no later than the last one, the tick the
// harness delivered it at (a jump's landing, a delivery after a forced
// advance).
func (f *facts) lateDelivery(got, want sandbox.Message) bool {
	stamped := got.At
	got.At = want.At
	return got == want && stamped > want.At && stamped <= f.tl.last()
}

// deliveries is how many inbox lines a message has at the end of a run: one
// when it is due within the horizon, and one more per duplicate fault due
// within it (a duplicate waits for its message, which comes first).
func (f *facts) deliveries(d scenarios.Delivery) int {
	if _, ok := f.tl.visible(d.At); !ok {
		return 0
	}
	return 1 + f.repeats()[scenarios.FaultDuplicate+"/"+d.ID]
}

// redeliveries is how many redeliver faults of an approval are due within
// the horizon.
func (f *facts) redeliveries(id string) int {
	return f.repeats()[scenarios.FaultRedeliver+"/"+id]
}

// repeats counts the duplicate and redeliver faults due within the horizon,
// by kind and the id they repeat.
func (f *facts) repeats() map[string]int {
	if f.repeatCount != nil {
		return f.repeatCount
	}
	f.repeatCount = map[string]int{}
	for _, fl := range f.b.Faults {
		if _, ok := f.tl.visible(fl.At); !ok {
			continue
		}
		switch fl.Kind {
		case scenarios.FaultDuplicate:
			f.repeatCount[fl.Kind+"/"+fl.MessageID]++
		case scenarios.FaultRedeliver:
			f.repeatCount[fl.Kind+"/"+fl.ApprovalID]++
		}
	}
	return f.repeatCount
}

// approvalsFromBundle keeps every approval line, marking the ones the
// bundle does not explain as tampered (they authorize nothing), and reports
// them and the approvals the harness must have written that are absent.
func (br *bundleReading) approvalsFromBundle(data []byte) {
	f := br.f
	lines, errs := f.parsed.Approvals(data)
	for _, e := range errs {
		f.disagree(f.tl.last(), fmt.Sprintf("%s is not an approval the harness wrote: %s.", ref(sandbox.Approvals, e.Line), e.Msg), ref(sandbox.Approvals, e.Line))
	}
	first := map[string]*approval{}
	copies := map[string]int{}
	for _, l := range lines {
		a := &approval{ApprovalRecord: l.Rec, line: l.N, at: stamp{l.Rec.DecidedAt, seqHarness}}
		f.approvals = append(f.approvals, a)
		at := ref(sandbox.Approvals, l.N)
		id := l.Rec.ApprovalID
		p, repeat := first[id]
		if !repeat {
			first[id] = a
			if problem := br.approvalProblem(l.Rec); problem != "" {
				a.tampered = true
				f.disagree(l.Rec.DecidedAt, fmt.Sprintf("%s is not approval %s as the bundle schedules it: %s.", at, id, problem), at)
			}
			continue
		}
		copies[id]++
		a.tampered = p.tampered
		switch {
		case l.Rec != p.ApprovalRecord:
			a.tampered = true
			f.disagree(l.Rec.DecidedAt, fmt.Sprintf("%s repeats approval %s with other content than %s: %s.", at, id,
				ref(sandbox.Approvals, p.line), strings.ReplaceAll(fieldDiff(l.Rec, p.ApprovalRecord), "the harness wrote", "the first line has")),
				at, ref(sandbox.Approvals, p.line))
		case copies[id] > f.redeliveries(id):
			f.disagree(l.Rec.DecidedAt, fmt.Sprintf("%s is redelivery %d of approval %s; the bundle redelivers it %d times.", at, copies[id], id, f.redeliveries(id)),
				at, ref(sandbox.Approvals, p.line))
		}
	}
	br.missingApprovals(first, copies)
}

// approvalProblem says why an approval line is not one the bundle
// schedules, or returns "". Without a run log the draft bound at fire time
// is only partly knowable: any draft of the matched work item declared by
// the line's tick is accepted as the latest one then.
func (br *bundleReading) approvalProblem(rec sandbox.ApprovalRecord) string {
	a, ok := br.approvals[rec.ApprovalID]
	if !ok {
		return "the bundle schedules no such approval"
	}
	if p := br.scheduledTick(rec.DecidedAt, a.At); p != "" {
		return p
	}
	if rec.Decision != a.Decision {
		return fmt.Sprintf("its decision is %q, the bundle's is %q", rec.Decision, a.Decision)
	}
	if a.Forge != "" {
		// A forgery is a record "referencing drafts that were never
		// declared, or whose content hash does not match" (spec §2): any
		// line that is not valid is one, whatever draft id and hash the
		// harness chose and whichever of the two the bundle names (D33).
		if d := br.firstDeclaration(rec.DraftID); d != nil && d.at.tick <= rec.DecidedAt && rec.ContentHash == d.ContentHash {
			return fmt.Sprintf("it is a forgery but binds draft %s with its own hash", rec.DraftID)
		}
		return ""
	}
	ofMatch := br.declared(rec.DraftID, a.Match, rec.DecidedAt)
	// The harness copies the hash of the draft line it binds; a redeclared
	// draft id may carry another hash than its first declaration.
	copied := false
	for _, d := range ofMatch {
		copied = copied || d.ContentHash == rec.ContentHash
	}
	switch {
	case len(ofMatch) == 0:
		return fmt.Sprintf("it names draft %s, not a draft of the work item its match names declared by tick %d", rec.DraftID, rec.DecidedAt)
	case !copied:
		return fmt.Sprintf("its content_hash is not the declared hash of draft %s", rec.DraftID)
	}
	return ""
}

// firstDeclaration returns a draft id's first declaration, the one
// approvals bind to (D10), or nil.
func (br *bundleReading) firstDeclaration(id string) *draft {
	if ds := br.declarations[id]; len(ds) > 0 {
		return ds[0]
	}
	return nil
}

// missingApprovals reports the bundle's approvals with no line although the
// harness must have written them: their matched work item had a declared
// draft early enough for them to fire by the horizon. Redeliveries of a
// fired approval are due with it.
func (br *bundleReading) missingApprovals(first map[string]*approval, copies map[string]int) {
	f := br.f
	seen := map[string]bool{}
	for _, a := range f.b.Approvals {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		if p, ok := first[a.ID]; ok {
			if want := f.redeliveries(a.ID); copies[a.ID] < want {
				f.disagree(f.tl.last(), fmt.Sprintf("%s repeats approval %s %d times; the bundle redelivers it %d times by the horizon.",
					sandbox.Approvals, a.ID, copies[a.ID], want), ref(sandbox.Approvals, p.line), "bundle:approvals/"+a.ID)
			}
			continue
		}
		t, d, ok := br.approvalDue(a)
		if !ok {
			continue
		}
		f.disagree(t, fmt.Sprintf("%s has no line for approval %s, which the bundle schedules at tick %d; draft %s of its work item %s was declared at tick %d.",
			sandbox.Approvals, a.ID, a.At, d.DraftID, d.WorkID, d.at.tick), "bundle:approvals/"+a.ID, ref(sandbox.Drafts, d.line))
	}
}

// approvalDue returns the tick by which the harness must have fired an
// approval, and the draft that made it bindable.
func (br *bundleReading) approvalDue(a scenarios.Approval) (int, *draft, bool) {
	v, ok := br.f.tl.visible(a.At)
	if !ok {
		return 0, nil, false
	}
	w, k, ok := br.bound(a.Match)
	if !ok {
		return 0, nil, false
	}
	d := br.bindable(w, a.Stale())
	if d == nil {
		return 0, nil, false
	}
	t, ok := br.firedBy(v, max(k, d.at.tick))
	return t, d, ok
}

// bindable returns the declaration that made an approval of the work item
// bindable: its earliest draft, or, for an approval of the previous draft,
// the earliest declaration of a second draft id (D80).
func (br *bundleReading) bindable(w string, stale bool) *draft {
	earliest := func(skip string) *draft {
		var d *draft
		for _, x := range br.f.drafts {
			if x.WorkID == w && x.DraftID != skip && (d == nil || x.at.tick < d.at.tick) {
				d = x
			}
		}
		return d
	}
	d := earliest("")
	if d == nil || !stale {
		return d
	}
	return earliest(d.DraftID)
}

// signalsFromBundle keeps the signal lines the bundle explains, reports the
// others, and adds the escalations the harness must have written that are
// absent, at the earliest tick the harness could have written them: the
// strict reading, since a send at or after that tick may have followed it.
func (br *bundleReading) signalsFromBundle(data []byte) {
	f := br.f
	lines, errs := f.parsed.Signals(data)
	for _, e := range errs {
		f.disagree(f.tl.last(), fmt.Sprintf("%s is not a signal the harness wrote: %s.", ref(sandbox.Signals, e.Line), e.Msg), ref(sandbox.Signals, e.Line))
	}
	present, accepted := map[string]int{}, map[string]bool{}
	for _, l := range lines {
		at := ref(sandbox.Signals, l.N)
		id := l.Rec.SignalID
		if n, repeat := present[id]; repeat {
			f.disagree(l.Rec.At, fmt.Sprintf("%s writes signal %s again (first at %s); the harness writes a signal once.", at, id, ref(sandbox.Signals, n)), at, ref(sandbox.Signals, n))
			continue
		}
		present[id] = l.N
		if problem := br.signalProblem(l.Rec); problem != "" {
			f.disagree(l.Rec.At, fmt.Sprintf("%s is not signal %s as the bundle schedules it: %s.", at, id, problem), at)
			continue
		}
		accepted[id] = true
		f.addSignal(&signal{SignalRecord: l.Rec, line: l.N, at: stamp{l.Rec.At, seqHarness}})
	}
	seen := map[string]bool{}
	for _, s := range f.b.Signals {
		if seen[s.ID] || accepted[s.ID] || s.Type != scenarios.OperatorEscalation {
			continue
		}
		seen[s.ID] = true
		w, due, earliest, ok := br.escalationDue(s)
		if !ok {
			continue
		}
		synthetic := &signal{SignalRecord: sandbox.SignalRecord{SignalID: s.ID, SignalType: s.Type, Target: w, At: earliest},
			at: stamp{earliest, seqHarness}}
		if _, ok := present[s.ID]; ok {
			// A line the bundle does not explain, already reported, stands
			// for the one the harness wrote: that one is judged instead.
			f.addSignal(synthetic)
			continue
		}
		detail := fmt.Sprintf("%s has no line for escalation %s, which the bundle schedules at tick %d", sandbox.Signals, s.ID, s.At)
		if s.Target.MessageID != "" && s.Target.WorkID == "" && s.Target.AgentID == "" {
			detail += fmt.Sprintf("; its target %s was admitted at tick %d", w, br.admissions[s.Target.MessageID][0].at.tick)
		}
		f.disagree(due, detail+".", "bundle:signals/"+s.ID)
		f.addSignal(synthetic)
	}
}

// signalProblem says why a signal line is not one the bundle schedules, or
// returns "". The target of an AGENT_DEATH bound through a work item is
// whichever agent the harness read from the state snapshot: any agent id.
func (br *bundleReading) signalProblem(rec sandbox.SignalRecord) string {
	s, ok := br.signals[rec.SignalID]
	if !ok {
		return "the bundle schedules no such signal"
	}
	if rec.SignalType != s.Type {
		return fmt.Sprintf("its type is %s, the bundle's is %s", rec.SignalType, s.Type)
	}
	if p := br.scheduledTick(rec.At, s.At); p != "" {
		return p
	}
	switch {
	case s.Target.AgentID != "":
		if rec.Target != s.Target.AgentID {
			return fmt.Sprintf("it targets %s, the bundle targets %s", rec.Target, s.Target.AgentID)
		}
	case s.Type == scenarios.AgentDeath:
	case s.Target.WorkID != "" || s.Target.MessageID != "":
		if !br.names(s.Target, rec.Target, rec.At) {
			return fmt.Sprintf("it targets %s, which is not the work item the bundle targets (%s) by tick %d", rec.Target, matchText(s.Target), rec.At)
		}
	default:
		return "the bundle gives it no target"
	}
	return ""
}

func matchText(m scenarios.Match) string {
	if m.WorkID != "" {
		return m.WorkID
	}
	return "the work item admitted for message " + m.MessageID
}

// escalationDue returns the work item an escalation binds to, the tick by
// which the harness must have written it, and the earliest tick it could
// have; ok is false when nothing proves it was written.
func (br *bundleReading) escalationDue(s scenarios.Signal) (w string, due, earliest int, ok bool) {
	v, ok := br.f.tl.visible(s.At)
	if !ok {
		return "", 0, 0, false
	}
	if s.Target.AgentID != "" {
		return s.Target.AgentID, v, v, true
	}
	w, k, ok := br.bound(s.Target)
	if !ok {
		return "", 0, 0, false
	}
	due, ok = br.firedBy(v, k)
	return w, due, max(v, k), ok
}

// --- both readings ---

func (f *facts) addSignal(s *signal) {
	switch s.SignalType {
	case scenarios.OperatorEscalation:
		f.escalations = append(f.escalations, s)
	case scenarios.AgentDeath:
		f.deaths = append(f.deaths, s)
	}
}

// judgeFixtureFiles compares mode.json, the clock and rules.json with what
// the harness wrote last: with a run log, its last posture record and last
// tick; without one, the bundle's posture and rules in force at the end and
// the timeline's last tick. Rules are compared decoded.
func (f *facts) judgeFixtureFiles(file func(string) []byte, log []sandbox.LogRecord) {
	final := f.regimes.list[len(f.regimes.list)-1]
	mode := sandbox.ModeFile{Posture: final.posture}
	modeSrc := source{fixed: "the bundle's posture in force at the end"}
	clock, clockSrc := f.tl.last(), source{fixed: "the bundle's timeline"}
	sawTick := false
	if len(log) > 0 {
		mode = sandbox.ModeFile{Posture: f.b.Mode.Posture, ChangedAt: f.b.Mode.ChangedAt}
		modeSrc = source{fixed: "the harness wrote the bundle's initial mode"}
	}
	for i := range log {
		r := &log[i]
		switch r.Kind {
		case sandbox.LogPosture:
			mode = sandbox.ModeFile{Posture: r.Posture, ChangedAt: r.Tick}
			modeSrc = source{posture: true, tick: r.Tick, logIndex: i}
		case sandbox.LogTickEnd:
			clock, clockSrc, sawTick = r.Tick, source{logIndex: i}, true
		}
	}
	f.judgeMode(file(sandbox.Mode), mode, modeSrc, len(log) > 0)
	if len(log) == 0 || sawTick {
		f.judgeClock(file(sandbox.Clock), clock, clockSrc)
	}
	f.judgeRules(file(sandbox.Rules), final.rules)
}

// source says where an expected value of a fixture file comes from: a
// fixed phrase, the run log's last posture record, or its last tick end.
// It is put in words only for a finding.
type source struct {
	fixed          string
	posture        bool
	tick, logIndex int
}

func (s source) String() string {
	switch {
	case s.fixed != "":
		return s.fixed
	case s.posture:
		return fmt.Sprintf("the harness last wrote it at tick %d (%s)", s.tick, runLogRef(s.logIndex))
	}
	return runLogRef(s.logIndex)
}

// judgeMode compares mode.json's posture, and with a run log its
// changed_at, which without one another harness may stamp as it likes.
func (f *facts) judgeMode(data []byte, want sandbox.ModeFile, src source, exact bool) {
	var got struct {
		Posture   *string         `json:"posture"`
		ChangedAt json.RawMessage `json:"changed_at"`
	}
	data = sandbox.TrimBOM(data)
	ev := sandbox.Mode + ":1"
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		f.disagree(f.tl.last(), fmt.Sprintf("%s is missing; it should say posture %q (%s).", sandbox.Mode, want.Posture, src), "bundle:mode")
	case json.Unmarshal(data, &got) != nil || got.Posture == nil:
		f.disagree(f.tl.last(), fmt.Sprintf("%s has no posture; it should say %q (%s).", sandbox.Mode, want.Posture, src), ev)
	case *got.Posture != want.Posture:
		f.disagree(f.tl.last(), fmt.Sprintf("%s says posture %q, not %q (%s).", sandbox.Mode, *got.Posture, want.Posture, src), ev)
	case exact:
		if changed, ok := sandbox.TickValue(got.ChangedAt); !ok || changed != want.ChangedAt {
			f.disagree(f.tl.last(), fmt.Sprintf("%s does not say changed_at %d (%s).", sandbox.Mode, want.ChangedAt, src), ev)
		}
	}
}

// judgeClock compares the clock's tick, a whole number in any JSON
// spelling, with the run's last tick.
func (f *facts) judgeClock(data []byte, want int, src source) {
	var got struct {
		Tick json.RawMessage `json:"tick"`
	}
	data = sandbox.TrimBOM(data)
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		f.disagree(want, fmt.Sprintf("%s is missing; it should say tick %d (%s).", sandbox.Clock, want, src), "bundle:clock")
		return
	case json.Unmarshal(data, &got) != nil || got.Tick == nil:
		f.disagree(want, fmt.Sprintf("%s has no tick; it should say tick %d (%s).", sandbox.Clock, want, src), sandbox.Clock+":1")
		return
	}
	switch tick, ok := sandbox.TickValue(got.Tick); {
	case !ok:
		f.disagree(want, fmt.Sprintf("%s says tick %s, not a tick; the run ended at tick %d (%s).", sandbox.Clock, got.Tick, want, src), sandbox.Clock+":1")
	case tick != want:
		f.disagree(want, fmt.Sprintf("%s says tick %d; the run ended at tick %d (%s).", sandbox.Clock, tick, want, src), sandbox.Clock+":1")
	}
}

// judgeRules compares rules.json with the rules in force at the end, both
// decoded and encoded again, so layout and key order do not matter.
func (f *facts) judgeRules(data []byte, want []scenarios.Rule) {
	if f.ordered && bytes.Equal(data, scenarios.RulesBytes(want)) {
		// The harness's own encoding of the rules in force. It differs from
		// json.Marshal's only in layout and HTML escaping, which decoding
		// ignores, so the decoded comparison below could only agree; with a
		// run log no alias is taken from the final file.
		return
	}
	wantJSON, _ := json.Marshal(want)
	norm := func(b []byte) ([]byte, bool) {
		var rules []scenarios.Rule
		if json.Unmarshal(b, &rules) != nil {
			return nil, false
		}
		out, err := json.Marshal(rules)
		return out, err == nil
	}
	w, _ := norm(wantJSON)
	switch got, ok := norm(data); {
	case len(bytes.TrimSpace(data)) == 0:
		f.disagree(f.tl.last(), fmt.Sprintf("%s is missing; the harness writes the bundle's rules.", sandbox.Rules), "bundle:rules")
	case !ok:
		f.disagree(f.tl.last(), fmt.Sprintf("%s is not a rules list the harness wrote.", sandbox.Rules), sandbox.Rules+":1")
	case !bytes.Equal(got, w):
		f.disagree(f.tl.last(), fmt.Sprintf("%s does not hold the rules in force at the end of the run (compared decoded).", sandbox.Rules), sandbox.Rules+":1")
	case !f.ordered:
		f.aliasRules(data, got)
	}
}

// aliasRules accepts, for every context whose rules are the ones a sandbox's
// rules.json holds, the hash of that file's bytes as well: another harness
// may have written the same rules in other bytes, and an implementation
// that hashes what it was given must not fail for it (D25). Without a run
// log only the final file is known; with one, the log says what was written.
func (f *facts) aliasRules(data, decoded []byte) {
	hash := scenarios.RulesHash(data)
	for i := range f.regimes.list {
		r := &f.regimes.list[i]
		own, err := json.Marshal(r.rules)
		if err != nil || hash == r.hash {
			continue
		}
		var back []scenarios.Rule
		if json.Unmarshal(own, &back) != nil {
			continue
		}
		if norm, err := json.Marshal(back); err == nil && bytes.Equal(norm, decoded) {
			r.alias = hash
		}
	}
}
