// Package timeline turns one run into the story a person reads: tick by
// tick, what the harness did (deliveries, approvals with the draft they
// bound, signals, faults, crashes), what the implementation wrote
// (admissions, claims, drafts, sends, resolutions), and where the checker
// found each violation, with its evidence.
//
// It reads a run the way the checker does — the bundle, the sandbox files,
// the run log and the verdict — and places every implementation line at the
// tick the harness saw it written when a run log exists, at the line's own
// timestamp otherwise. The same run gives the same timeline, as records
// (JSON) or as aligned text.
package timeline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Who acted.
const (
	Harness = "harness"
	Impl    = "impl"
	Checker = "checker"
)

// Entry is one thing that happened at one tick.
type Entry struct {
	Tick int    `json:"tick"`
	Who  string `json:"who"`
	// What is a short verb: deliver, duplicate, approve, reject, redeliver,
	// signal, posture, rules, jump, crash, forced, error, unfired; admit,
	// claim, draft, send, resolve, audit, bad-line; violation.
	What string `json:"what"`
	// ID is the main id the entry is about (message, approval, signal,
	// work item, draft, effect, invariant).
	ID   string `json:"id,omitempty"`
	Text string `json:"text"`
	// Ref is where it is written: a sandbox file and line, or evidence.
	Ref string `json:"ref,omitempty"`
}

// Timeline is one run's story.
type Timeline struct {
	Scenario string `json:"scenario"`
	Impl     string `json:"impl,omitempty"`
	// Seeds are the run's seeds, as far as they are known: the ones the
	// caller played with, else the run log's.
	seeds.Seeds
	BundleHash string            `json:"bundle_hash,omitempty"`
	Horizon    int               `json:"horizon"`
	TopLevel   int               `json:"top_level"`
	Levels     map[string]string `json:"levels"`
	// Obligations counts the items each tested level's checks judged;
	// Vacuous lists the levels that passed with none (shown "vacuous").
	Obligations map[string]int `json:"obligations"`
	Vacuous     []string       `json:"vacuous"`
	// Observed is true when implementation lines are placed by the run
	// log, false when by their own timestamps.
	Observed   bool                `json:"observed"`
	Entries    []Entry             `json:"entries"`
	Violations []checker.Violation `json:"violations"`
	// Downtimes are the run's crashes with a downtime, each with what piled
	// up while the implementation was down and when it was first acted on
	// (known only from a run log).
	Downtimes []Downtime `json:"downtimes"`

	visited []int
}

// Input is a finished run: the bundle it played, its sandbox files, its run
// log (nil for artifacts from another harness) and the checker's verdict.
// Seeds, when set, are the seeds it was played with; otherwise the run
// log's are shown.
type Input struct {
	Bundle  *scenarios.Bundle
	Files   map[string][]byte
	Log     []sandbox.LogRecord
	Verdict checker.Verdict
	Seeds   *seeds.Seeds
}

// Build assembles the timeline of a run. It never fails: lines that do not
// parse become bad-line entries, as the checker scores them.
func Build(in Input) *Timeline {
	t := &Timeline{Levels: map[string]string{}, Obligations: map[string]int{}, Vacuous: []string{},
		Violations: in.Verdict.Violations, Observed: hasTickEnds(in.Log)}
	if t.Violations == nil {
		t.Violations = []checker.Violation{}
	}
	for i, l := range in.Verdict.Levels {
		t.Levels[fmt.Sprintf("L%d", i)] = l
		if l != checker.Untested {
			t.Obligations[fmt.Sprintf("L%d", i)] = in.Verdict.Obligations[i]
		}
	}
	for _, l := range in.Verdict.Vacuous {
		t.Vacuous = append(t.Vacuous, fmt.Sprintf("L%d", l))
	}
	b := in.Bundle
	if b == nil {
		b = &scenarios.Bundle{}
	}
	t.Scenario, t.Horizon, t.TopLevel = b.Meta.Name, b.Meta.Horizon, b.Meta.TopLevel
	t.visited = scenarios.TimelineOf(b)
	for _, r := range in.Log {
		if r.Kind == sandbox.LogStart {
			t.Impl, t.Seeds, t.BundleHash = r.Start().Impl, r.Start().Seeds, r.Start().BundleHash
		}
	}
	if in.Seeds != nil {
		t.Seeds = *in.Seeds
	}
	file := func(name string) []byte { return in.Files[name] }
	impl := implLines(file)
	var entries []Entry
	t.Downtimes = []Downtime{}
	if t.Observed {
		o := newOutages(draftWork(file))
		entries = observedEntries(b, in.Log, impl, o)
		for _, d := range o.all {
			t.Downtimes = append(t.Downtimes, *d)
		}
	} else {
		entries = stampedEntries(b, file, impl)
	}
	t.Entries = placeViolations(entries, t.Violations)
	return t
}

// hasTickEnds reports whether a run log records what each tick wrote.
func hasTickEnds(log []sandbox.LogRecord) bool {
	for _, r := range log {
		if r.Kind == sandbox.LogTickEnd {
			return true
		}
	}
	return false
}

// implLine is one line of an implementation log, parsed into an entry, with
// its own timestamp.
type implLine struct {
	file  string
	n     int
	own   int
	entry Entry
	rec   record
}

// implLines parses the implementation's logs into entries, per file in line
// order. Unparsable lines become bad-line entries.
func implLines(file func(string) []byte) map[string][]implLine {
	out := map[string][]implLine{}
	add := func(name string, n, own int, e Entry, rec record) {
		e.Who, e.Ref = Impl, fmt.Sprintf("%s:%d", name, n)
		out[name] = append(out[name], implLine{file: name, n: n, own: own, entry: e, rec: rec})
	}
	bad := func(errs []sandbox.LineError) {
		for _, le := range errs {
			add(le.File, le.Line, -1, Entry{What: "bad-line", Text: le.Error()}, record{file: le.File})
		}
	}
	drafts, errs := sandbox.ParseDrafts(file(sandbox.Drafts))
	for _, l := range drafts {
		d := l.Rec
		add(sandbox.Drafts, l.N, d.DeclaredAt, Entry{What: "draft", ID: d.DraftID,
			Text: fmt.Sprintf("%s for %s in %s: %s", d.DraftID, d.WorkID, d.ConversationID, quote(d.Body, 48))},
			record{file: sandbox.Drafts, fields: map[string]string{"draft_id": d.DraftID, "work_id": d.WorkID}})
	}
	bad(errs)
	outbox, errs := sandbox.ParseOutbox(file(sandbox.Outbox))
	for _, l := range outbox {
		e := l.Rec
		add(sandbox.Outbox, l.N, e.SentAt, Entry{What: "send", ID: e.EffectID,
			Text: fmt.Sprintf("%s of draft %s", e.EffectID, e.DraftID)},
			record{file: sandbox.Outbox, fields: map[string]string{"draft_id": e.DraftID}})
	}
	bad(errs)
	audit, errs := sandbox.ParseAudit(file(sandbox.Audit))
	for _, l := range audit {
		add(sandbox.Audit, l.N, l.Rec.At, auditEntry(l.Rec), auditRecord(l.Rec))
	}
	bad(errs)
	for name, lines := range out {
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].n < lines[j].n })
		out[name] = lines
	}
	return out
}

// draftWork maps each declared draft to its work item.
func draftWork(file func(string) []byte) map[string]string {
	drafts, _ := sandbox.ParseDrafts(file(sandbox.Drafts))
	out := map[string]string{}
	for _, l := range drafts {
		out[l.Rec.DraftID] = l.Rec.WorkID
	}
	return out
}

// auditEntry renders one audit record.
func auditEntry(r sandbox.AuditRecord) Entry {
	switch r.Event {
	case sandbox.EventAdmission:
		text := fmt.Sprintf("%s as %s", r.MessageID, r.WorkID)
		if rule, ok := field(r, "rule_id"); ok {
			text += " (rule " + rule + ")"
		}
		return Entry{What: "admit", ID: r.WorkID, Text: text}
	case sandbox.EventClaim:
		return Entry{What: "claim", ID: r.WorkID, Text: withReason(fmt.Sprintf("%s by %s: %s", r.WorkID, r.AgentID, r.Outcome), r.Reason)}
	case sandbox.EventResolution:
		return Entry{What: "resolve", ID: r.WorkID, Text: withReason(fmt.Sprintf("%s %s", r.WorkID, r.Outcome), r.Reason)}
	}
	parts := []string{r.Event}
	for _, k := range []string{"message_id", "work_id", "approval_id", "draft_id", "agent_id", "outcome", "reason"} {
		if v, ok := field(r, k); ok {
			parts = append(parts, k+"="+v)
		}
	}
	return Entry{What: "audit", Text: strings.Join(parts, " ")}
}

func withReason(s, reason string) string {
	if reason == "" {
		return s
	}
	return s + " (" + reason + ")"
}

// field reads a string field of a free-form audit record.
func field(r sandbox.AuditRecord, key string) (string, bool) {
	raw, ok := r.Field(key)
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" {
		return "", false
	}
	return s, true
}

// quote renders a text in quotes, cut to at most n runes.
func quote(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// short cuts a hash for display: "sha256:3113f000…".
func short(h string) string {
	if len(h) > 15 {
		return h[:15] + "…"
	}
	return h
}

// observedEntries places everything by the run log: the harness's records
// in log order, and each tick's implementation lines in the order of the
// tick's writes, with crashes inside the tick after the write they followed.
func observedEntries(b *scenarios.Bundle, log []sandbox.LogRecord, impl map[string][]implLine, o *outages) []Entry {
	var (
		out     []Entry
		next    = map[string]int{}
		crashes []sandbox.LogRecord
		errs    []sandbox.LogRecord
	)
	var down *pileUp
	for _, r := range log {
		switch r.Kind {
		case sandbox.LogStart, sandbox.LogEnd:
		case sandbox.LogRestart:
			o.restart(r.Tick)
			if down != nil {
				out = append(out, down.restartEntry(r.Tick))
				down = nil
			}
		case sandbox.LogCrash:
			o.crash(r)
			if r.Down > 0 && down == nil {
				down = &pileUp{since: r.Tick}
			}
			if r.AfterWrites == 0 {
				out = append(out, crashEntry(r))
			} else {
				crashes = append(crashes, r)
			}
		case sandbox.LogStepError:
			errs = append(errs, r)
		case sandbox.LogTickEnd:
			out = append(out, tickWrites(r, impl, next, crashes, o)...)
			for _, e := range errs {
				out = append(out, Entry{Tick: e.Tick, Who: Harness, What: "error", Text: e.Detail})
			}
			if r.Forced {
				out = append(out, Entry{Tick: r.Tick, Who: Harness, What: "forced",
					Text: "forced advance: the implementation was still writing"})
			}
			crashes, errs = nil, nil
		default:
			e := harnessEntry(b, r)
			o.fired(r, e)
			if down != nil {
				down.add(r.Kind)
				e.Text += " (unread: the implementation is down)"
			}
			out = append(out, e)
		}
	}
	// Lines no tick_end counted (the files were changed after the run)
	// still belong to the story: they go last.
	last := 0
	if len(log) > 0 {
		last = log[len(log)-1].Tick
	}
	for _, name := range sandbox.ImplLogs {
		for _, l := range impl[name][next[name]:] {
			e := l.entry
			e.Tick = last
			e.Text += " (not seen during the run)"
			out = append(out, e)
		}
	}
	return out
}

// tickWrites lists the implementation lines one tick_end counts, in the
// order of the tick's writes, with the tick's crashes after the write they
// followed. Writes to private files are not in the log, so a crash's place
// is exact only for implementations that write none.
func tickWrites(r sandbox.LogRecord, impl map[string][]implLine, next map[string]int, crashes []sandbox.LogRecord, o *outages) []Entry {
	var out []Entry
	take := func(name string) {
		lines := impl[name]
		if k := next[name]; k < len(lines) && lines[k].n <= r.Lines[name] {
			e := lines[k].entry
			e.Tick = r.Tick
			o.wrote(r.Tick, lines[k].rec, e)
			out = append(out, e)
			next[name] = k + 1
		}
	}
	since := 0
	for _, w := range r.Writes {
		if sandbox.IsImplLog(w) {
			take(w)
		}
		since++
		if len(crashes) > 0 && since >= crashes[0].AfterWrites {
			out = append(out, crashEntry(crashes[0]))
			crashes, since = crashes[1:], 0
		}
	}
	for _, c := range crashes {
		out = append(out, crashEntry(c))
	}
	// Lines the writes list did not account for, file by file.
	for _, name := range sandbox.ImplLogs {
		for k := next[name]; k < len(impl[name]) && impl[name][k].n <= r.Lines[name]; k = next[name] {
			take(name)
		}
	}
	return out
}

func crashEntry(r sandbox.LogRecord) Entry {
	when := "at the tick's start"
	switch {
	case r.Torn != "":
		where := r.Torn
		if r.Line > 0 {
			where = fmt.Sprintf("%s:%d", r.Torn, r.Line)
		}
		when = fmt.Sprintf("in the middle of write %d this tick (%s torn after %d byte(s))", r.AfterWrites, where, len(r.TornText))
	case r.AfterWrites > 0 && r.WritesTo == sandbox.State:
		// It counted the new versions of state.json only (D157).
		when = fmt.Sprintf("after %d new version(s) of %s this tick", r.AfterWrites, r.WritesTo)
	case r.AfterWrites > 0 && r.WritesTo != "":
		// It counted one log's lines only (D138).
		when = fmt.Sprintf("after %d new line(s) of %s this tick", r.AfterWrites, r.WritesTo)
	case r.AfterWrites > 0:
		when = fmt.Sprintf("after %d write(s) this tick", r.AfterWrites)
	}
	then := "restarted on the same files"
	switch {
	case r.Down > 0:
		then = fmt.Sprintf("down for %d tick(s): the schedule fires unread until the restart", r.Down)
	case r.Detail != "" && strings.HasPrefix(r.Detail, "nothing to kill"):
		then = r.Detail
	}
	return Entry{Tick: r.Tick, Who: Harness, What: "crash", Text: "crash " + when + "; " + then}
}

// pileUp counts what the harness wrote while the implementation was down:
// what the restarted instance finds unread.
type pileUp struct {
	since  int
	counts map[string]int
	order  []string
}

func (p *pileUp) add(kind string) {
	if p.counts == nil {
		p.counts = map[string]int{}
	}
	if p.counts[kind] == 0 {
		p.order = append(p.order, kind)
	}
	p.counts[kind]++
}

func (p *pileUp) restartEntry(tick int) Entry {
	var parts []string
	for _, k := range p.order {
		parts = append(parts, fmt.Sprintf("%d %s", p.counts[k], k))
	}
	unread := "nothing"
	if len(parts) > 0 {
		unread = strings.Join(parts, ", ")
	}
	return Entry{Tick: tick, Who: Harness, What: "restart",
		Text: fmt.Sprintf("a fresh instance after %d tick(s) down reads what piled up since tick %d: %s", tick-p.since, p.since, unread)}
}

// harnessEntry renders one harness record of the run log.
func harnessEntry(b *scenarios.Bundle, r sandbox.LogRecord) Entry {
	e := Entry{Tick: r.Tick, Who: Harness, What: r.Kind, ID: r.ID}
	ref := func(file string) string {
		if r.Line > 0 {
			return fmt.Sprintf("%s:%d", file, r.Line)
		}
		return ""
	}
	switch r.Kind {
	case sandbox.LogDeliver:
		e.Text, e.Ref = deliveryText(b, r.ID), ref(sandbox.Inbox)
	case sandbox.LogDuplicate:
		e.Text, e.Ref = r.ID+" delivered again", ref(sandbox.Inbox)
	case sandbox.LogApprove:
		e.What = "approve"
		if r.Decision == scenarios.DecisionReject {
			e.What = "reject"
		}
		e.Text = fmt.Sprintf("%s binds draft %s (%s)", r.ID, r.DraftID, short(r.ContentHash))
		if r.Forge != "" {
			e.Text += ", forged: " + r.Forge
		}
		e.Ref = ref(sandbox.Approvals)
	case sandbox.LogRedeliver:
		e.Text, e.Ref = r.ID+" delivered again", ref(sandbox.Approvals)
	case sandbox.LogSignal:
		e.Text, e.Ref = fmt.Sprintf("%s %s -> %s", r.ID, r.SignalType, r.Target), ref(sandbox.Signals)
	case sandbox.LogPosture:
		e.Text = "mode.json: posture " + r.Posture
	case sandbox.LogRules:
		e.Text = "rules.json rewritten (rules_hash " + short(r.RulesHash) + ")"
	case sandbox.LogJump:
		e.What, e.Text = "jump", fmt.Sprintf("the clock jumps from %d to %d", r.Tick, r.To)
	case sandbox.LogUnfired:
		what := r.ID
		if r.Ref != "" {
			what = r.Ref + " of " + r.ID
		}
		e.Text = fmt.Sprintf("%s never fired: %s", what, r.Detail)
	default:
		e.Text = strings.TrimSpace(r.ID + " " + r.Detail)
	}
	if r.Scheduled != nil && *r.Scheduled < r.Tick && r.Kind != sandbox.LogUnfired {
		e.Text += fmt.Sprintf(" [due at %d]", *r.Scheduled)
	}
	if r.Stamped != nil {
		e.Text += fmt.Sprintf(" [stamped %d]", *r.Stamped)
	}
	return e
}

// deliveryText describes a delivered message from the bundle.
func deliveryText(b *scenarios.Bundle, id string) string {
	d, ok := b.Message(id)
	if !ok {
		return id
	}
	return fmt.Sprintf("%s in %s from %s: %s", d.ID, d.ConversationID, d.From, quote(d.Subject, 40))
}

// stampedEntries places everything by its own timestamp, for artifacts
// without a run log: the harness's lines first at each tick (spec §2: the
// harness fires, then the system works), then the implementation's, file by
// file. Lines whose timestamp cannot be read go to the end.
func stampedEntries(b *scenarios.Bundle, file func(string) []byte, impl map[string][]implLine) []Entry {
	type stamped struct {
		e     Entry
		group int
	}
	var all []stamped
	add := func(group int, e Entry) { all = append(all, stamped{e, group}) }
	inbox, _ := sandbox.ParseInbox(file(sandbox.Inbox))
	seen := map[string]bool{}
	for _, l := range inbox {
		e := Entry{Tick: l.Rec.At, Who: Harness, What: "deliver", ID: l.Rec.ID,
			Text: deliveryText(b, l.Rec.ID), Ref: fmt.Sprintf("%s:%d", sandbox.Inbox, l.N)}
		if seen[l.Rec.ID] {
			e.What, e.Text = "duplicate", l.Rec.ID+" delivered again"
		}
		seen[l.Rec.ID] = true
		add(0, e)
	}
	approvals, _ := sandbox.ParseApprovals(file(sandbox.Approvals))
	for _, l := range approvals {
		a := l.Rec
		what := "approve"
		if a.Decision == scenarios.DecisionReject {
			what = "reject"
		}
		add(0, Entry{Tick: a.DecidedAt, Who: Harness, What: what, ID: a.ApprovalID,
			Text: fmt.Sprintf("%s binds draft %s (%s)", a.ApprovalID, a.DraftID, short(a.ContentHash)),
			Ref:  fmt.Sprintf("%s:%d", sandbox.Approvals, l.N)})
	}
	signals, _ := sandbox.ParseSignals(file(sandbox.Signals))
	for _, l := range signals {
		sg := l.Rec
		add(0, Entry{Tick: sg.At, Who: Harness, What: "signal", ID: sg.SignalID,
			Text: fmt.Sprintf("%s %s -> %s", sg.SignalID, sg.SignalType, sg.Target),
			Ref:  fmt.Sprintf("%s:%d", sandbox.Signals, l.N)})
	}
	for _, f := range b.Faults {
		switch f.Kind {
		case scenarios.FaultCrash:
			add(0, crashEntry(sandbox.LogRecord{Tick: f.At, AfterWrites: f.AfterWrites, WritesTo: f.WritesTo}))
		case scenarios.FaultPosture:
			add(0, Entry{Tick: f.At, Who: Harness, What: "posture", Text: "mode.json: posture " + f.Posture})
		case scenarios.FaultRules:
			add(0, Entry{Tick: f.At, Who: Harness, What: "rules", Text: "rules.json rewritten"})
		case scenarios.FaultTickJump:
			add(0, Entry{Tick: f.At, Who: Harness, What: "jump", Text: fmt.Sprintf("the clock jumps from %d to %d", f.At, f.At+f.By)})
		}
	}
	end := max(b.Meta.Horizon, 0)
	for g, name := range sandbox.ImplLogs {
		for _, l := range impl[name] {
			e := l.entry
			e.Tick = l.own
			if l.own < 0 {
				e.Tick = end
			}
			add(1+g, e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].e.Tick != all[j].e.Tick {
			return all[i].e.Tick < all[j].e.Tick
		}
		return all[i].group < all[j].group
	})
	out := make([]Entry, len(all))
	for i, s := range all {
		out[i] = s.e
	}
	return out
}

// placeViolations puts each violation at the end of its tick.
func placeViolations(entries []Entry, vs []checker.Violation) []Entry {
	vs = append([]checker.Violation(nil), vs...)
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Tick < vs[j].Tick })
	out := make([]Entry, 0, len(entries)+len(vs))
	k := 0
	flush := func(upTo int, all bool) {
		for ; k < len(vs) && (all || vs[k].Tick < upTo); k++ {
			v := vs[k]
			out = append(out, Entry{Tick: v.Tick, Who: Checker, What: "violation", ID: v.Invariant,
				Text: v.Invariant + ": " + v.Detail, Ref: strings.Join(v.Evidence, " ")})
		}
	}
	for _, e := range entries {
		flush(e.Tick, false)
		out = append(out, e)
	}
	flush(0, true)
	return out
}
