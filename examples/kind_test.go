package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShownKind(t *testing.T) {
	kinds := map[string]string{}
	for _, im := range All() {
		kinds[im.Name] = im.ShownKind()
	}
	assert.Equal(t, KindReference, kinds[ReferenceName])
	assert.Equal(t, KindWeak, kinds["weak-no-send"])
	assert.Equal(t, KindCostly, kinds["weak-redraft-every-tick"], "its only target is a diagnostic")

	mixed := Impl{Kind: KindWeak, Targets: []string{"surprise.unattributed-call", "L0.reply"}}
	assert.Equal(t, KindWeak, mixed.ShownKind(), "one invariant among its targets makes it weak")
}
