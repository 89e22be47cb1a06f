package examples

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// The reference reads rules.json as any implementation would: from the
// bytes in the sandbox, by the rules of docs/rules.md, with no help from the
// harness's own evaluator.

// rule is one admission rule of rules.json.
type rule struct {
	id        string
	admit     bool
	when      conditions
	overrides []string
}

// conditions are a rule's tests; a nil one is absent (or null) and not
// tested.
type conditions struct {
	subjectContains, bodyContains, posture *string
	fromIn                                 *[]string
	threadMin, threadMax                   *int
	historyMin, historyMax                 *int
	// unknown is set when the rule has a condition key the rules language
	// does not define: such a rule matches nothing.
	unknown bool
}

// facts are what a rule may look at for one message.
type facts struct {
	subject, body, from, posture string
	threadLength                 int // messages of its conversation so far, itself included
	senderHistory                int // messages from its sender before it, any conversation
}

// parseRules reads rules.json. A file that is not a rule list, or a known
// condition of the wrong type, is an error: admissions wait until the file
// is readable.
func parseRules(data []byte) ([]rule, error) {
	if rules, ok := parsePlainRules(data); ok {
		return rules, nil
	}
	return decodeRules(data)
}

// decodeRules is parseRules through encoding/json, for any bytes.
func decodeRules(data []byte) ([]rule, error) {
	var file []struct {
		ID        string                     `json:"id"`
		Admit     bool                       `json:"admit"`
		When      map[string]json.RawMessage `json:"when"`
		Overrides []string                   `json:"overrides"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, err
	}
	rules := make([]rule, 0, len(file))
	for _, r := range file {
		when, err := parseConditions(r.When)
		if err != nil {
			return nil, err
		}
		rules = append(rules, rule{id: r.ID, admit: r.Admit, when: when, overrides: r.Overrides})
	}
	return rules, nil
}

func parseConditions(when map[string]json.RawMessage) (conditions, error) {
	var c conditions
	for key, value := range when {
		var err error
		switch key {
		case "subject_contains":
			err = json.Unmarshal(value, &c.subjectContains)
		case "body_contains":
			err = json.Unmarshal(value, &c.bodyContains)
		case "from_in":
			err = json.Unmarshal(value, &c.fromIn)
		case "posture":
			err = json.Unmarshal(value, &c.posture)
		case "thread_length_min":
			err = json.Unmarshal(value, &c.threadMin)
		case "thread_length_max":
			err = json.Unmarshal(value, &c.threadMax)
		case "sender_history_min":
			err = json.Unmarshal(value, &c.historyMin)
		case "sender_history_max":
			err = json.Unmarshal(value, &c.historyMax)
		default:
			c.unknown = true
		}
		if err != nil {
			return conditions{}, err
		}
	}
	return c, nil
}

// admitted applies the rules to one message and names the admitting rule:
// the first engaged rule, not switched off by an engaged rule's overrides,
// that admits and whose every condition holds.
func admitted(rules []rule, f facts) (string, bool) {
	off := map[string]bool{}
	for _, r := range rules {
		if r.engaged(f.posture) {
			for _, id := range r.overrides {
				off[id] = true
			}
		}
	}
	for _, r := range rules {
		if r.admit && r.engaged(f.posture) && !off[r.id] && r.when.hold(f) {
			return r.id, true
		}
	}
	return "", false
}

// engaged: a rule takes part when it has no posture condition or its
// posture is the one in force.
func (r rule) engaged(posture string) bool {
	return r.when.posture == nil || *r.when.posture == posture
}

func (c conditions) hold(f facts) bool {
	return !c.unknown &&
		(c.subjectContains == nil || containsFold(f.subject, *c.subjectContains)) &&
		(c.bodyContains == nil || containsFold(f.body, *c.bodyContains)) &&
		(c.fromIn == nil || oneOf(f.from, *c.fromIn)) &&
		(c.posture == nil || *c.posture == f.posture) &&
		atLeast(f.threadLength, c.threadMin) && atMost(f.threadLength, c.threadMax) &&
		atLeast(f.senderHistory, c.historyMin) && atMost(f.senderHistory, c.historyMax)
}

func containsFold(s, part string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(part))
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func atLeast(n int, bound *int) bool { return bound == nil || n >= *bound }
func atMost(n int, bound *int) bool  { return bound == nil || n <= *bound }

// rulesHash is the spec's rules_hash: the hex SHA-256 of the rules.json
// bytes as read.
func rulesHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
