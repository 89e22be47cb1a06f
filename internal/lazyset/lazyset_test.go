package lazyset

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The set holds its names and no others, and every call returns the same
// map, built once.
func TestOfBuildsOnce(t *testing.T) {
	s := Of("a", "b", "a")
	m := s()
	assert.Equal(t, map[string]bool{"a": true, "b": true}, m)
	assert.False(t, m["c"])
	m2 := s()
	m2["probe"] = true
	assert.True(t, s()["probe"], "a second call returned another map")
	assert.Empty(t, Of()())
}
