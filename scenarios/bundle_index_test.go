package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An Index answers as the scans it replaces, the first of a repeated id
// included, and a nil bundle's Index finds nothing.
func TestIndexAnswersAsTheScans(t *testing.T) {
	b := &Bundle{
		Inbox:     []Delivery{{ID: "m1", Body: "first"}, {ID: "m2"}, {ID: "m1", Body: "again"}},
		Approvals: []Approval{{ID: "a1", At: 3}, {ID: "a1", At: 4}, {ID: "a2"}},
	}
	x := b.Index()
	for _, id := range []string{"m1", "m2", "m3", ""} {
		want, wok := b.Message(id)
		got, gok := x.Message(id)
		assert.Equal(t, wok, gok, id)
		assert.Equal(t, want, got, id)
	}
	for _, id := range []string{"a1", "a2", "a3"} {
		want, wok := b.ApprovalByID(id)
		got, gok := x.ApprovalByID(id)
		assert.Equal(t, wok, gok, id)
		assert.Equal(t, want, got, id)
	}
	got, _ := x.Message("m1")
	assert.Equal(t, "first", got.Body)
	var none *Bundle
	_, ok := none.Index().Message("m1")
	assert.False(t, ok)
	_, ok = none.Index().ApprovalByID("a1")
	assert.False(t, ok)
}
