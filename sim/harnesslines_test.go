package sim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/amr-bench/amr/sim/sandbox"
	"pgregory.net/rapid"
)

// The harness's lines laid out by hand are sandbox.MarshalLine's bytes,
// plain strings or not.
func TestHarnessLinesMatchMarshalLine(t *testing.T) {
	str := rapid.OneOf(rapid.SampledFrom([]string{"", "m-1", "ann@example.com", "a<b>&c", "q\"uote", `back\slash`,
		"tab\t", "é", "\u2028", "\xff", "~ !#$%", "\x7f"}), rapid.StringMatching(`[ -~]{0,12}`), rapid.String())
	num := rapid.OneOf(rapid.IntRange(-5, 500), rapid.Int())
	check := func(t *rapid.T, got []byte, err error, v any) {
		want, werr := sandbox.MarshalLine(v)
		if err != nil || werr != nil || string(got) != string(want) {
			t.Fatalf("got %q (%v), MarshalLine gives %q (%v)", got, err, want, werr)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		m := sandbox.Message{ID: str.Draw(t, "id"), ConversationID: str.Draw(t, "c"), From: str.Draw(t, "from"),
			Subject: str.Draw(t, "subject"), Body: str.Draw(t, "body"), At: num.Draw(t, "at")}
		got, err := messageLine(m)
		check(t, got, err, m)
		a := sandbox.ApprovalRecord{ApprovalID: str.Draw(t, "approval"), DraftID: str.Draw(t, "draft"),
			ContentHash: str.Draw(t, "hash"), Decision: str.Draw(t, "decision"), DecidedAt: num.Draw(t, "decided")}
		got, err = approvalLine(a)
		check(t, got, err, a)
		s := sandbox.SignalRecord{SignalID: str.Draw(t, "signal"), SignalType: str.Draw(t, "type"),
			Target: str.Draw(t, "target"), At: num.Draw(t, "sat")}
		got, err = signalLine(s)
		check(t, got, err, s)
	})
}

// The hand layouts name every field of the records they write; a field
// added to one of them must be laid out too. This test fails first,
// pointing at harnesslines.go.
func TestHarnessLinesKnowEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[sandbox.Message]():        "id conversation_id from subject body at",
		reflect.TypeFor[sandbox.ApprovalRecord](): "approval_id draft_id content_hash decision decided_at",
		reflect.TypeFor[sandbox.SignalRecord]():   "signal_id signal_type target at",
	} {
		var tags []string
		for i := range typ.NumField() {
			tags = append(tags, typ.Field(i).Tag.Get("json"))
		}
		if got := strings.Join(tags, " "); got != want {
			t.Errorf("%s has the fields %q; harnesslines.go writes %q", typ.Name(), got, want)
		}
	}
}
