package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
)

// shardProcess is amr (this test binary, through TestAMRHelper) as the pod
// of an Indexed Job with completion index k runs it.
func shardProcess(t *testing.T, k int, args ...string) *exec.Cmd {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the shard processes are run on Linux only")
	}
	words := append([]string{"-test.run=^TestAMRHelper$", "-test.count=1", "--"}, args...)
	c := exec.Command(os.Args[0], words...)
	c.Env = append(os.Environ(), cmdHelperEnv+"=1", fuzz.IndexEnv+"="+strconv.Itoa(k))
	return c
}

// runShards runs the n shards of a campaign at once, as the Job's pods
// run, each writing to dir/<k>, and returns their folders.
func runShards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var dirs []string
	var procs []*exec.Cmd
	var outs []*bytes.Buffer
	for k := range n {
		out := filepath.Join(dir, strconv.Itoa(k))
		c := shardProcess(t, k, append([]string{"fuzz", "--shard", "auto/" + strconv.Itoa(n), "--out", out}, args...)...)
		var buf bytes.Buffer
		c.Stdout, c.Stderr = &buf, &buf
		require.NoError(t, c.Start())
		dirs, procs, outs = append(dirs, out), append(procs, c), append(outs, &buf)
	}
	for k, c := range procs {
		err := c.Wait()
		code := c.ProcessState.ExitCode()
		require.Contains(t, []int{exitOK, exitFail}, code, "shard %d: %v\n%s", k, err, outs[k])
		assert.Contains(t, outs[k].String(), "shard "+strconv.Itoa(k)+"/"+strconv.Itoa(n), "the shard came from "+fuzz.IndexEnv)
	}
	return dirs
}

// files reads every file under dir by its relative path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = string(data)
		return err
	}))
	return out
}

func TestShardProcessesMergeToTheUnshardedCampaign(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"finds a weak implementation", []string{"--impl", "weak-send-before-record", "--seed", "11", "--runs", "120"}, exitFail},
		{"stays clean", []string{"--impl", "reference", "--seed", "3", "--runs", "60"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--no-corpus", "--no-shrink", "--workers", "1"}, tc.args...)
			dir := t.TempDir()
			whole := filepath.Join(dir, "whole")
			stdout, stderr, code := execAMR(t, append([]string{"fuzz", "--out", whole}, args...)...)
			require.Equal(t, tc.code, code, stdout+stderr)
			assert.Contains(t, stdout, "result: "+filepath.Join(whole, fuzz.ResultFile))
			want := files(t, whole)
			require.Contains(t, want, fuzz.ResultFile)
			if tc.code == exitFail {
				require.Contains(t, want, filepath.Join(fuzz.RawDir, fuzz.BundleJSON))
			}
			for _, n := range []int{2, 3, 5} {
				shards := runShards(t, filepath.Join(dir, "shards-"+strconv.Itoa(n)), n, args...)
				merged := filepath.Join(dir, "merged-"+strconv.Itoa(n))
				stdout, stderr, code := execAMR(t, append(append([]string{"fuzz", "merge"}, shards...), "--out", merged)...)
				require.Equal(t, tc.code, code, stdout+stderr)
				assert.Contains(t, stdout, "merged "+strconv.Itoa(n)+" shard(s) of campaign")
				assert.Equal(t, want, files(t, merged), "%d shards: the merged folder is the unsharded one, byte for byte", n)
			}
		})
	}
}

func TestFuzzMergeJSONIsTheResultFileAndCarriesTheShrunkRun(t *testing.T) {
	dir := t.TempDir()
	shards := runShards(t, dir, 2, "--impl", "weak-no-send", "--seed", "2", "--runs", "20", "--no-corpus", "--workers", "1")
	merged := filepath.Join(dir, "merged")
	stdout, stderr, code := execAMR(t, append(append([]string{"fuzz", "merge", "--json"}, shards...), "--out", merged)...)
	require.Equal(t, exitFail, code, stderr)
	data, err := os.ReadFile(filepath.Join(merged, fuzz.ResultFile))
	require.NoError(t, err)
	assert.Equal(t, string(data), stdout)
	assert.Contains(t, stderr, "counterexample: run ")
	assert.Contains(t, stderr, "replay, from "+merged+": amr run --impl weak-no-send --runs 1 --seed ")
	r, err := fuzz.ReadResult(merged)
	require.NoError(t, err)
	from := shards[*r.FirstFailure%2]
	assert.Equal(t, files(t, filepath.Join(from, fuzz.ShrunkDir)), files(t, filepath.Join(merged, fuzz.ShrunkDir)),
		"the shrunk run comes with the raw one")
}

// waitForProgress reads a shard's stderr until its first progress line.
func waitForProgress(t *testing.T, c *exec.Cmd) {
	t.Helper()
	pipe, err := c.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, c.Start())
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "fuzz: ") {
			go func() {
				for sc.Scan() {
				}
			}()
			return
		}
	}
	t.Fatal("the shard ended before it printed progress: give it a larger budget")
}

// TestMergeNamesAKilledShard takes about ten seconds: a shard is killed
// after its first progress line (500 ms), so its budget, 1,000 runs with
// one worker, must outlast that on a fast machine (about 1,000 runs per
// CPU-second), and the shard is played three times (killed, stopped,
// whole).
func TestMergeNamesAKilledShard(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--impl", "reference", "--seed", "2", "--runs", "3000", "--no-corpus", "--workers", "1"}
	shard := func(k int) *exec.Cmd {
		return shardProcess(t, k, append([]string{"fuzz", "--shard", "auto/3", "--progress", "--out", filepath.Join(dir, strconv.Itoa(k))}, args...)...)
	}
	dirs := []string{filepath.Join(dir, "0"), filepath.Join(dir, "1"), filepath.Join(dir, "2")}
	merge := func() (string, int) {
		stdout, stderr, code := execAMR(t, append([]string{"fuzz", "merge"}, dirs...)...)
		return stdout + stderr, code
	}

	var others []*exec.Cmd
	for _, k := range []int{0, 2} {
		c := shard(k)
		require.NoError(t, c.Start())
		others = append(others, c)
	}
	killed := shard(1)
	waitForProgress(t, killed)
	require.NoError(t, killed.Process.Signal(syscall.SIGKILL))
	_ = killed.Wait()
	for _, c := range others {
		require.NoError(t, c.Wait())
	}
	out, code := merge()
	assert.Equal(t, exitBad, code, out)
	assert.Contains(t, out, dirs[1]+": no campaign.json: the campaign did not finish")
	assert.Contains(t, out, "missing shard(s) of 3: 1")

	// Stopped by SIGTERM, as a pod is evicted, the shard writes what it
	// judged, and the merge says which runs it cannot answer for.
	stopped := shard(1)
	waitForProgress(t, stopped)
	require.NoError(t, stopped.Process.Signal(syscall.SIGTERM))
	_ = stopped.Wait()
	assert.Equal(t, exitShardInterrupted, stopped.ProcessState.ExitCode(), "a pod stopped half-way must not pass for a finished shard")
	out, code = merge()
	assert.Equal(t, exitBad, code, out)
	assert.Contains(t, out, "undecidable: the campaign's answer needs run ")
	assert.Contains(t, out, "which shard 1/3 never judged (it was interrupted after ")
	assert.Contains(t, out, "run shard 1 again")

	rerun, err := shard(1).CombinedOutput()
	require.NoError(t, err, string(rerun))
	out, code = merge()
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "3000 run(s) judged (runs 0..2999), ended: budget, outcome: clean")
}
