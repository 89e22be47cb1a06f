package shrink

import (
	"slices"
	"strings"

	"github.com/amr-bench/amr/scenarios"
)

// agents drops fleet agents one at a time. The fleet keeps at least one
// agent, and every agent a signal names outright.
func (s *shrinker) agents() bool {
	changed := false
	for _, id := range slices.Clone(s.cur.Fleet) {
		if s.out || len(s.cur.Fleet) < 2 {
			break
		}
		if namedBySignal(s.cur, id) {
			continue
		}
		c := s.cur.Clone()
		c.Fleet = slices.DeleteFunc(c.Fleet, func(a string) bool { return a == id })
		if s.try(c) {
			changed = true
		}
	}
	return changed
}

func namedBySignal(b *scenarios.Bundle, agent string) bool {
	for _, sg := range b.Signals {
		if sg.Target.AgentID == agent {
			return true
		}
	}
	return false
}

// ruleSets returns pointers to every rule set of a bundle: the initial one,
// then each rules fault's, so a pass can edit them all the same way.
func ruleSets(b *scenarios.Bundle) []*[]scenarios.Rule {
	out := []*[]scenarios.Rule{&b.Rules}
	for i := range b.Faults {
		if b.Faults[i].Kind == scenarios.FaultRules {
			out = append(out, &b.Faults[i].Rules)
		}
	}
	return out
}

// rules removes rules one at a time, from every rule set, and the overrides
// that named them. A rules fault keeps at least one rule.
func (s *shrinker) rules() bool {
	changed := false
	for set := 0; set < len(ruleSets(s.cur)); set++ {
		for i := 0; !s.out && i < len(*ruleSets(s.cur)[set]); {
			if set > 0 && len(*ruleSets(s.cur)[set]) < 2 {
				break
			}
			c := s.cur.Clone()
			rs := ruleSets(c)[set]
			id := (*rs)[i].ID
			*rs = slices.Delete(*rs, i, i+1)
			for k := range *rs {
				r := &(*rs)[k]
				r.Overrides = slices.DeleteFunc(r.Overrides, func(o string) bool { return o == id })
				if len(r.Overrides) == 0 {
					r.Overrides = nil
				}
			}
			if s.try(c) {
				changed = true
				continue
			}
			i++
		}
	}
	return changed
}

// conditions removes the conditions of every rule one at a time, then the
// entries of from_in lists and of overrides lists.
func (s *shrinker) conditions() bool {
	changed := false
	for set := 0; set < len(ruleSets(s.cur)); set++ {
		for i := 0; i < len(*ruleSets(s.cur)[set]); i++ {
			for _, edit := range ruleEdits(&(*ruleSets(s.cur)[set])[i]) {
				if s.out {
					return changed
				}
				c := s.cur.Clone()
				edit(&(*ruleSets(c)[set])[i])
				if s.try(c) {
					changed = true
				}
			}
		}
	}
	return changed
}

// ruleEdits lists the simplifications of one rule, each as a function that
// applies it to a copy. Edits are computed from r but applied to copies, so
// each is tried on its own.
func ruleEdits(r *scenarios.Rule) []func(*scenarios.Rule) {
	var out []func(*scenarios.Rule)
	w := r.When
	if w.SubjectContains != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.SubjectContains = nil })
	}
	if w.BodyContains != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.BodyContains = nil })
	}
	if w.FromIn != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.FromIn = nil })
		if len(*w.FromIn) > 1 {
			for _, addr := range *w.FromIn {
				out = append(out, func(r *scenarios.Rule) {
					if r.When.FromIn == nil {
						return
					}
					l := slices.DeleteFunc(slices.Clone(*r.When.FromIn), func(a string) bool { return a == addr })
					r.When.FromIn = &l
				})
			}
		}
	}
	if w.Posture != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.Posture = nil })
	}
	if w.ThreadLengthMin != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.ThreadLengthMin = nil })
	}
	if w.ThreadLengthMax != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.ThreadLengthMax = nil })
	}
	if w.SenderHistoryMin != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.SenderHistoryMin = nil })
	}
	if w.SenderHistoryMax != nil {
		out = append(out, func(r *scenarios.Rule) { r.When.SenderHistoryMax = nil })
	}
	for _, k := range sortedKeys(w.Unknown) {
		out = append(out, func(r *scenarios.Rule) { delete(r.When.Unknown, k) })
	}
	for _, o := range r.Overrides {
		out = append(out, func(r *scenarios.Rule) {
			r.Overrides = slices.DeleteFunc(slices.Clone(r.Overrides), func(x string) bool { return x == o })
			if len(r.Overrides) == 0 {
				r.Overrides = nil
			}
		})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// anchors removes the stub model's anchors one at a time.
func (s *shrinker) anchors() bool {
	changed := false
	for i := 0; !s.out && i < len(s.cur.Model.Anchors); {
		c := s.cur.Clone()
		c.Model.Anchors = slices.Delete(c.Model.Anchors, i, i+1)
		if s.try(c) {
			changed = true
			continue
		}
		i++
	}
	return changed
}

// mode starts the bundle in the normal posture, changed at tick 0.
func (s *shrinker) mode() bool {
	changed := false
	if s.cur.Mode.Posture != "normal" {
		c := s.cur.Clone()
		c.Mode.Posture = "normal"
		changed = s.try(c) || changed
	}
	if s.cur.Mode.ChangedAt != 0 && !s.out {
		c := s.cur.Clone()
		c.Mode.ChangedAt = 0
		changed = s.try(c) || changed
	}
	return changed
}

// Replies the stub model falls back to when the bundle's own can be shorter.
const (
	shortReply         = "Re {{anchor}}."
	shortReplyNoAnchor = "Thanks."
)

// texts shortens subjects, bodies and the stub's replies. A shorter text
// keeps, in order, the words that anchors and rule conditions look for;
// whether that is enough is the oracle's call.
func (s *shrinker) texts() bool {
	changed := false
	for i := 0; i < len(s.cur.Inbox); i++ {
		for _, field := range []func(*scenarios.Delivery) *string{
			func(d *scenarios.Delivery) *string { return &d.Subject },
			func(d *scenarios.Delivery) *string { return &d.Body },
		} {
			for _, cand := range shorter(*field(&s.cur.Inbox[i]), needles(s.cur)) {
				if s.out {
					return changed
				}
				c := s.cur.Clone()
				*field(&c.Inbox[i]) = cand
				if s.try(c) {
					changed = true
					break
				}
			}
		}
	}
	if strings.Contains(s.cur.Model.Reply, "{{anchor}}") && len(shortReply) < len(s.cur.Model.Reply) && !s.out {
		c := s.cur.Clone()
		c.Model.Reply = shortReply
		changed = s.try(c) || changed
	}
	if len(shortReplyNoAnchor) < len(s.cur.Model.ReplyNoAnchor) && !s.out {
		c := s.cur.Clone()
		c.Model.ReplyNoAnchor = shortReplyNoAnchor
		changed = s.try(c) || changed
	}
	return changed
}

// needles are the strings a text may need to keep: the anchors and every
// subject_contains and body_contains of every rule set.
func needles(b *scenarios.Bundle) []string {
	out := slices.Clone(b.Model.Anchors)
	for _, rs := range ruleSets(b) {
		for _, r := range *rs {
			if r.When.SubjectContains != nil {
				out = append(out, *r.When.SubjectContains)
			}
			if r.When.BodyContains != nil {
				out = append(out, *r.When.BodyContains)
			}
		}
	}
	return out
}

// shorter lists candidates strictly shorter than text, shortest first: the
// empty text, the needles found in text (as spelled there, in order), and
// the first half of its words.
func shorter(text string, needles []string) []string {
	var out []string
	add := func(c string) {
		if len(c) < len(text) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	add("")
	add(strings.Join(found(text, needles), " "))
	if words := strings.Fields(text); len(words) > 1 {
		add(strings.Join(words[:len(words)/2], " "))
	}
	return out
}

// found returns the needles that occur in text, case-insensitively, as text
// spells them, in the order they occur; overlapping finds keep the first.
func found(text string, needles []string) []string {
	type hit struct{ at, end int }
	var hits []hit
	for _, n := range needles {
		if i := indexFold(text, n); i >= 0 {
			hits = append(hits, hit{i, i + len(n)})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	var out []string
	end := -1
	for _, h := range hits {
		if h.at < end {
			continue
		}
		out = append(out, text[h.at:h.end])
		end = h.end
	}
	return out
}

// indexFold finds needle in text ignoring case, comparing byte windows of
// the needle's length so positions stay valid whatever the text holds.
func indexFold(text, needle string) int {
	if needle == "" {
		return -1
	}
	for i := 0; i+len(needle) <= len(text); i++ {
		if strings.EqualFold(text[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// crashes lands crashes earlier within their tick: at the boundary, or
// after fewer writes. A crash that counts one log's lines (writes_to, D138)
// keeps counting them after fewer of them; at the boundary it counts
// nothing, so the log goes with its k.
func (s *shrinker) crashes() bool {
	changed := false
	for i := 0; i < len(s.cur.Faults); i++ {
		f := s.cur.Faults[i]
		if f.Kind != scenarios.FaultCrash || f.AfterWrites <= 0 {
			continue
		}
		for _, k := range fewer(f.AfterWrites, 0) {
			if s.out {
				return changed
			}
			c := s.cur.Clone()
			c.Faults[i].AfterWrites = k
			if k == 0 {
				c.Faults[i].WritesTo = ""
			}
			if s.try(c) {
				changed = true
				break
			}
		}
	}
	return changed
}

// fewer lists values from lo up to v, smallest first: lo, the midpoint and
// v-1, each once and below v.
func fewer(v, lo int) []int {
	var out []int
	for _, k := range []int{lo, lo + (v-lo)/2, v - 1} {
		if k >= lo && k < v && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
