package sandbox

import (
	"encoding/json"
	"sort"
)

// readExtras reads the optional structured fields of a stub's log line. A
// field of the wrong shape is left empty: like every optional field of the
// log, it is for readers and judges nothing (decision D26).
func (c *ModelCall) readExtras(o *object) {
	if raw, ok := o.get("tool_calls"); ok {
		var v []ToolCall
		if json.Unmarshal(raw, &v) == nil {
			c.ToolCalls = v
		}
	}
	if raw, ok := o.get("ignored"); ok {
		var v []Ignored
		if json.Unmarshal(raw, &v) == nil {
			c.Ignored = v
		}
	}
	if raw, ok := o.get("failed"); ok {
		var v Failed
		if json.Unmarshal(raw, &v) == nil && string(raw) != "null" {
			c.Failed = &v
		}
	}
	if raw, ok := o.get("rejected"); ok {
		var v Rejected
		if json.Unmarshal(raw, &v) == nil && string(raw) != "null" {
			c.Rejected = &v
		}
	}
}

// ModelCallStats sums a stub's log: the calls answered, the requests
// refused, and how often each request field went unhonoured.
type ModelCallStats struct {
	Calls    int `json:"calls"`
	Rejected int `json:"rejected"`
	// Failed counts the calls the bundle made fail.
	Failed int `json:"failed,omitempty"`
	// Ignored counts the calls that asked for a feature in each field.
	Ignored map[string]int `json:"ignored,omitempty"`
}

// Notable reports whether anything was refused or ignored.
func (s ModelCallStats) Notable() bool { return s.Rejected > 0 || len(s.Ignored) > 0 }

// IgnoredFields lists the fields of Ignored, sorted.
func (s ModelCallStats) IgnoredFields() []string {
	out := make([]string, 0, len(s.Ignored))
	for f := range s.Ignored {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Add folds another run's counts in.
func (s *ModelCallStats) Add(o ModelCallStats) {
	s.Calls += o.Calls
	s.Rejected += o.Rejected
	s.Failed += o.Failed
	for f, n := range o.Ignored {
		if s.Ignored == nil {
			s.Ignored = map[string]int{}
		}
		s.Ignored[f] += n
	}
}

// SummarizeModelCalls counts what a model-calls.jsonl says was refused and
// ignored. Lines that do not parse are not counted.
func SummarizeModelCalls(data []byte) ModelCallStats {
	calls, _ := ParseModelCalls(data)
	return SummarizeModelCallLines(calls)
}

// SummarizeModelCallLines is SummarizeModelCalls of lines already parsed
// (a run's shared parse, Parsed).
func SummarizeModelCallLines(calls []Line[ModelCall]) ModelCallStats {
	var s ModelCallStats
	for _, l := range calls {
		if l.Rec.Rejected != nil {
			s.Rejected++
			continue
		}
		if l.Rec.Failed != nil {
			s.Failed++
			continue
		}
		s.Calls++
		seen := map[string]bool{}
		for _, ig := range l.Rec.Ignored {
			if seen[ig.Field] {
				continue
			}
			seen[ig.Field] = true
			if s.Ignored == nil {
				s.Ignored = map[string]int{}
			}
			s.Ignored[ig.Field]++
		}
	}
	return s
}
