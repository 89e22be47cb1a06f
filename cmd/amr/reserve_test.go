package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
)

// withFakes makes sealing deterministic and gives apply a runner that
// passes every level up to the top one, except for failing bundles.
func withFakes(t *testing.T, failing ...string) {
	t.Helper()
	oldRandom, oldRun := sealRandom, runBundle
	sealRandom = rand.NewChaCha8([32]byte{7})
	runBundle = func(b *scenarios.Bundle, impl string, runs int) ([7]string, error) {
		var out [7]string
		for l := range out {
			out[l] = "untested"
			if l <= b.Meta.TopLevel {
				out[l] = "pass"
			}
		}
		for _, f := range failing {
			if impl == "weak" && b.Meta.Name == f {
				out[b.Meta.TopLevel] = "fail"
			}
		}
		return out, nil
	}
	t.Cleanup(func() { sealRandom, runBundle = oldRandom, oldRun })
}

// sealedSet copies three published scenarios into a reserve directory and
// seals it, returning the directory and the paths of the two files.
func sealedSet(t *testing.T) (bundles, manifest, secrets string) {
	t.Helper()
	work := t.TempDir()
	bundles = filepath.Join(work, "bundles")
	for _, name := range []string{"l0-respond", "l2-govern", "l4-operator-escalation"} {
		publishedCopy(t, name, bundles)
	}
	manifest, secrets = filepath.Join(work, "manifest.json"), filepath.Join(work, "secrets.json")
	stdout, stderr, code := execAMR(t, "reserve", "seal", bundles, "--manifest", manifest, "--secrets", secrets,
		"--created-at", "2026-03-01T12:00:00Z")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "sealed 3 bundle(s)")
	return bundles, manifest, secrets
}

func TestReserveCycle(t *testing.T) {
	withFakes(t, "l2-govern")
	bundles, manifest, secrets := sealedSet(t)
	work := filepath.Dir(manifest)

	m, err := reserve.ReadManifest(manifest)
	require.NoError(t, err)
	assert.Equal(t, "2026-03-01T12:00:00Z", m.CreatedAt)
	info, err := os.Stat(secrets)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "secrets are private")

	refLog := filepath.Join(work, "apply-reference.json")
	stdout, stderr, code := execAMR(t, "reserve", "apply", "--manifest", manifest, "--secrets", secrets,
		"--bundles", bundles, "--out", refLog, "--applied-at", "2026-03-02T00:00:00Z")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "applied 3 reserve bundle(s)")

	weakLog := filepath.Join(work, "apply-weak.json")
	stdout, _, code = execAMR(t, "reserve", "apply", "--manifest", manifest, "--secrets", secrets,
		"--bundles", bundles, "--impl", "weak", "--out", weakLog, "--applied-at", "2026-03-02T00:00:00Z")
	assert.Equal(t, exitFail, code, "a failed level is exit 1")
	assert.Contains(t, stdout, "FAIL")

	var weak reserve.Application
	data, err := os.ReadFile(weakLog)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &weak))
	assert.Equal(t, "weak", weak.Impl)
	assert.Equal(t, m.Root, weak.ManifestRoot)
	for _, name := range []string{"l2-govern", "l0-respond", "operator", "refund"} {
		assert.NotContains(t, string(data), name, "the application log names no bundle")
	}

	revealed := filepath.Join(work, "revealed")
	stdout, stderr, code = execAMR(t, "reserve", "reveal", "--secrets", secrets, "--bundles", bundles, "--out", revealed)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "revealed 3 bundle(s)")

	stdout, stderr, code = execAMR(t, "reserve", "verify", "--manifest", manifest, revealed)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "clean: 3 of 3 entries verified")

	// One byte changed in a revealed bundle is caught, by id.
	path := filepath.Join(revealed, "r02.json")
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(text), `"version": 1`, `"version": 2`, 1)), 0o644))
	stdout, _, code = execAMR(t, "reserve", "verify", "--manifest", manifest, revealed)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "ALTERED  r02")

	stdout, _, code = execAMR(t, "reserve", "verify", "--json", "--manifest", manifest, revealed)
	assert.Equal(t, exitFail, code)
	var report reserve.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &report))
	require.Len(t, report.Findings, 1)
	assert.Equal(t, reserve.Finding{ID: "r02", Kind: reserve.FindAltered, Detail: report.Findings[0].Detail}, report.Findings[0])
}

func TestReserveSealNeverOverwrites(t *testing.T) {
	withFakes(t)
	bundles, manifest, secrets := sealedSet(t)
	before, err := os.ReadFile(secrets)
	require.NoError(t, err)
	_, stderr, code := execAMR(t, "reserve", "seal", bundles, "--manifest", manifest+".2", "--secrets", secrets)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "already exists")
	after, err := os.ReadFile(secrets)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

func TestReserveUsageErrors(t *testing.T) {
	withFakes(t)
	bundles, manifest, secrets := sealedSet(t)
	out := filepath.Join(t.TempDir(), "log.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"seal without files", []string{"reserve", "seal", bundles}, "--manifest and --secrets"},
		{"seal bad time", []string{"reserve", "seal", bundles, "--manifest", out, "--secrets", out + ".s", "--created-at", "yesterday"}, "RFC 3339"},
		{"seal bad bundle dir", []string{"reserve", "seal", filepath.Join(bundles, "absent"), "--manifest", out, "--secrets", out + ".s"}, "absent"},
		{"apply without bundles", []string{"reserve", "apply", "--manifest", manifest, "--secrets", secrets, "--out", out}, "--bundles"},
		{"apply with secrets as manifest", []string{"reserve", "apply", "--manifest", secrets, "--secrets", secrets, "--bundles", bundles, "--out", out}, "format"},
		{"verify without manifest", []string{"reserve", "verify", bundles}, "--manifest"},
		{"verify missing dir", []string{"reserve", "verify", "--manifest", manifest, filepath.Join(bundles, "absent")}, "absent"},
		{"reveal into a full dir", []string{"reserve", "reveal", "--secrets", secrets, "--bundles", bundles, "--out", bundles}, "not empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := execAMR(t, tt.args...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

func TestReserveApplyWithoutRunner(t *testing.T) {
	withFakes(t)
	bundles, manifest, secrets := sealedSet(t)
	runBundle = nil
	out := filepath.Join(t.TempDir(), "log.json")
	_, stderr, code := execAMR(t, "reserve", "apply", "--manifest", manifest, "--secrets", secrets, "--bundles", bundles, "--out", out)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "no runner")
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err))
}

func TestReserveHelpTeachesByExample(t *testing.T) {
	for _, sub := range []string{"seal", "apply", "reveal", "verify"} {
		stdout, _, code := execAMR(t, "reserve", sub, "--help")
		assert.Equal(t, exitOK, code)
		assert.Contains(t, stdout, "Examples:", sub)
		assert.Contains(t, stdout, "amr reserve "+sub, sub)
	}
	stdout, _, _ := execAMR(t, "hash", "--help")
	assert.Contains(t, stdout, "Examples:")
}
