package scenarios

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPublishedScenariosLoad(t *testing.T) {
	pubs, err := Published()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pubs), 10)
	for _, p := range pubs {
		require.Equal(t, p.Name, p.Bundle.Meta.Name)
	}
}
