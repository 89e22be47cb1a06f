package checker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Judging artifacts no engine made: a one-message L0 bundle and the sandbox
// a hand-written implementation left, file by file. Without a run log the
// checker times each line by its own tick field. The message was admitted,
// its reply drafted from a logged model call, approved by the harness, sent
// once and resolved, all within the reply budget the horizon leaves room
// for, so L0 passes and is not vacuous; sending a draft never declared fails
// it, with the line that shows it.
func ExampleCheck() {
	order := "order"
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta:   scenarios.Meta{Name: "l0-by-hand", Version: 1, TopLevel: 0, Horizon: 30},
		Fleet:  []string{"agent-1"},
		Mode:   scenarios.Mode{Posture: "normal"},
		Rules:  []scenarios.Rule{{ID: "orders", Admit: true, When: scenarios.Conditions{SubjectContains: &order}}},
		Model:  scenarios.Model{Anchors: []string{"ORD-7"}, Reply: "About {{anchor}}: it ships today.", ReplyNoAnchor: "Which order?"},
		Inbox: []scenarios.Delivery{{ID: "m1", ConversationID: "c1", From: "ann@example.com",
			Subject: "Order ORD-7", Body: "Where is ORD-7?", At: 1}},
		Approvals: []scenarios.Approval{{ID: "ap1", At: 2, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve"}},
	}
	b.Normalize()

	reply := "About ORD-7: it ships today."
	sum := sha256.Sum256([]byte(reply))
	hash := "sha256:" + hex.EncodeToString(sum[:])
	files := map[string][]byte{
		// Written by the harness.
		sandbox.Clock:      []byte(`{"tick":30}` + "\n"),
		sandbox.Mode:       []byte(`{"posture":"normal","changed_at":0}` + "\n"),
		sandbox.Rules:      b.RulesFile(),
		sandbox.Inbox:      []byte(`{"id":"m1","conversation_id":"c1","from":"ann@example.com","subject":"Order ORD-7","body":"Where is ORD-7?","at":1}` + "\n"),
		sandbox.Approvals:  []byte(`{"approval_id":"ap1","draft_id":"d1","content_hash":"` + hash + `","decision":"approve","decided_at":2}` + "\n"),
		sandbox.ModelCalls: []byte(`{"call_id":"call-1","at":1,"prompt":"Where is ORD-7?","anchor":"ORD-7","reply":"` + reply + `"}` + "\n"),
		// Written by the implementation.
		sandbox.Drafts: []byte(`{"draft_id":"d1","work_id":"w1","conversation_id":"c1","body":"` + reply +
			`","content_hash":"` + hash + `","declared_at":1,"origin":["call-1"]}` + "\n"),
		sandbox.Outbox: []byte(`{"effect_id":"e1","draft_id":"d1","sent_at":2}` + "\n"),
		sandbox.Audit: []byte(`{"event":"admission","at":1,"work_id":"w1","message_id":"m1","rules_hash":"` +
			scenarios.RulesHash(b.RulesFile()) + `"}` + "\n" +
			`{"event":"resolution","at":2,"work_id":"w1","outcome":"completed","reason":"sent"}` + "\n"),
	}

	v := checker.Check(checker.Input{Bundle: b, Files: files})
	fmt.Println("L0:", v.Status(0), "origin:", v.Origin, "violations:", len(v.Violations))

	files[sandbox.Outbox] = append(files[sandbox.Outbox], `{"effect_id":"e2","draft_id":"d9","sent_at":3}`+"\n"...)
	v = checker.Check(checker.Input{Bundle: b, Files: files})
	fmt.Println("L0:", v.Status(0))
	for _, x := range v.Violations {
		fmt.Println(x.Invariant, x.Evidence)
	}
	// Output:
	// L0: pass origin: model-based violations: 0
	// L0: fail
	// L0.outbox-declared [outbox.jsonl:2]
}
