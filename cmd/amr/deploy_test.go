package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/amr-bench/amr/fuzz"
)

// No cluster runs here, so the manifests in deploy/ are held to what the
// merge needs by reading them: the fields of the Jobs, and the amr command
// line each runs, parsed by amr's own flags.

// job is the part of a batch/v1 Job the checks read. Unknown fields are
// refused, so a misspelt key (completionmode) fails here rather than being
// ignored by a cluster.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode          string `yaml:"completionMode"`
		Completions             *int   `yaml:"completions"`
		Parallelism             *int   `yaml:"parallelism"`
		BackoffLimit            *int   `yaml:"backoffLimit"`
		BackoffLimitPerIndex    *int   `yaml:"backoffLimitPerIndex"`
		ActiveDeadlineSeconds   *int   `yaml:"activeDeadlineSeconds"`
		TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
		PodFailurePolicy        *struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes *struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
				OnPodConditions []struct {
					Type string `yaml:"type"`
				} `yaml:"onPodConditions"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	RestartPolicy   string `yaml:"restartPolicy"`
	SecurityContext struct {
		RunAsNonRoot   *bool `yaml:"runAsNonRoot"`
		RunAsUser      *int  `yaml:"runAsUser"`
		RunAsGroup     *int  `yaml:"runAsGroup"`
		FSGroup        *int  `yaml:"fsGroup"`
		SeccompProfile struct {
			Type string `yaml:"type"`
		} `yaml:"seccompProfile"`
	} `yaml:"securityContext"`
	Containers []struct {
		Name            string   `yaml:"name"`
		Image           string   `yaml:"image"`
		ImagePullPolicy string   `yaml:"imagePullPolicy"`
		Args            []string `yaml:"args"`
		Env             []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				FieldRef struct {
					FieldPath string `yaml:"fieldPath"`
				} `yaml:"fieldRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			SubPath   string `yaml:"subPath"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	} `yaml:"containers"`
	Volumes []struct {
		Name                  string `yaml:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"persistentVolumeClaim"`
		EmptyDir *struct {
			SizeLimit string `yaml:"sizeLimit"`
		} `yaml:"emptyDir"`
	} `yaml:"volumes"`
}

func deployFile(name string) string { return filepath.Join("..", "..", "deploy", name) }

func readJob(t *testing.T, name string) job {
	t.Helper()
	f, err := os.Open(deployFile(name))
	require.NoError(t, err)
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	var j job
	require.NoError(t, dec.Decode(&j), name)
	require.Equal(t, "batch/v1", j.APIVersion, name)
	require.Equal(t, "Job", j.Kind, name)
	require.Len(t, j.Spec.Template.Spec.Containers, 1, name)
	return j
}

// dockerfile reads a Dockerfile line by line: its FROM and RUN lines, and
// the USER and ENTRYPOINT of its last stage.
func dockerfile(t *testing.T, name string) (froms, runs []string, user, entrypoint string) {
	t.Helper()
	f, err := os.Open(deployFile(name))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "FROM":
			froms, user = append(froms, rest), ""
		case "RUN":
			runs = append(runs, rest)
		case "USER":
			user = rest
		case "ENTRYPOINT":
			entrypoint = rest
		}
	}
	require.NoError(t, sc.Err())
	return froms, runs, user, entrypoint
}

func TestTheFuzzJobRunsEveryShardOnceAndKeepsItsResult(t *testing.T) {
	j := readJob(t, "fuzz-job.yaml")
	s := j.Spec
	assert.Equal(t, "Indexed", s.CompletionMode)
	require.NotNil(t, s.Completions)
	require.NotNil(t, s.Parallelism)
	n := *s.Completions
	assert.Equal(t, n, *s.Parallelism, "completions = parallelism: every shard runs at once")
	assert.Greater(t, n, 1)
	require.NotNil(t, s.BackoffLimitPerIndex, "a failed pod is retried for its own index")
	assert.Positive(t, *s.BackoffLimitPerIndex)
	assert.Nil(t, s.BackoffLimit, "backoffLimit would count every index's failures together")
	assert.Equal(t, "Never", s.Template.Spec.RestartPolicy, "podFailurePolicy and backoffLimitPerIndex need Never")

	// The failure policy: answers are not retried, bad usage ends the Job,
	// disruptions do not count.
	require.NotNil(t, s.PodFailurePolicy)
	actions := map[int]string{}
	ignoresDisruption := false
	for _, r := range s.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil {
			assert.Equal(t, "fuzz", r.OnExitCodes.ContainerName)
			assert.Equal(t, "In", r.OnExitCodes.Operator)
			for _, v := range r.OnExitCodes.Values {
				actions[v] = r.Action
			}
		}
		for _, c := range r.OnPodConditions {
			ignoresDisruption = ignoresDisruption || (c.Type == "DisruptionTarget" && r.Action == "Ignore")
		}
	}
	assert.Equal(t, map[int]string{exitFail: "FailIndex", exitInvalid: "FailIndex", exitBad: "FailJob"}, actions)
	assert.NotContains(t, actions, exitShardInterrupted, "an interrupted shard is retried")
	assert.True(t, ignoresDisruption)

	pod := s.Template.Spec
	c := pod.Containers[0]
	assert.Equal(t, "fuzz", c.Name)
	assert.Equal(t, "amr-bench/amr:"+version, c.Image, "the image is the one deploy/Dockerfile builds, tagged with amr's version")

	// The command line is one amr fuzz takes, as shard k of n for the
	// pod's index k.
	require.NotEmpty(t, c.Args)
	assert.Equal(t, "fuzz", c.Args[0])
	cmd := newFuzzCmd()
	require.NoError(t, cmd.ParseFlags(c.Args[1:]))
	flags := cmd.Flags()
	get := func(name string) string {
		f := flags.Lookup(name)
		require.NotNil(t, f, name)
		assert.True(t, f.Changed, "--%s is given", name)
		return f.Value.String()
	}
	assert.Equal(t, "auto/"+strconv.Itoa(n), get("shard"), "the shard count is the number of completions")
	for k := range n {
		shard, err := fuzz.ResolveShard(get("shard"), func(string) string { return strconv.Itoa(k) })
		require.NoError(t, err)
		assert.Equal(t, fuzz.Shard{Index: k, Count: n}, shard)
	}
	get("seed")
	runs, err := strconv.Atoi(get("runs"))
	require.NoError(t, err)
	assert.Positive(t, runs, "a number of runs, not --time: the merged answer is exact only for a budget of runs")
	assert.False(t, flags.Lookup("time").Changed, "no time budget: a time-bounded shard cuts the merged campaign short (D97)")
	assert.Equal(t, "true", get("no-corpus"), "each pod would replay its own corpus")
	assert.Equal(t, "/results/$(JOB_COMPLETION_INDEX)", get("out"))
	assert.Equal(t, "/impl/responder", get("impl-cmd"))
	assert.Equal(t, "step", get("regime"))
	workers, err := strconv.Atoi(get("workers"))
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(workers), c.Resources.Requests["cpu"], "one worker per requested core")

	index := false
	for _, e := range c.Env {
		if e.Name == fuzz.IndexEnv {
			require.NotNil(t, e.ValueFrom)
			assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", e.ValueFrom.FieldRef.FieldPath)
			index = true
		}
	}
	assert.True(t, index, "$(JOB_COMPLETION_INDEX) in --out expands from a variable the container names")

	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
		if m.MountPath == "/impl" {
			assert.True(t, m.ReadOnly, "the implementation is mounted read-only")
		}
	}
	assert.Equal(t, map[string]string{"/results": "results", "/impl": "impl", "/tmp": "tmp"}, mounts)
	checkVolumes(t, pod, map[string]string{"results": "pvc:amr-results", "impl": "pvc:amr-impl", "tmp": "emptyDir"})
	checkNonRoot(t, pod)
}

func TestTheMergeJobReadsEveryShardOfTheFuzzJob(t *testing.T) {
	fuzzJob, j := readJob(t, "fuzz-job.yaml"), readJob(t, "merge-job.yaml")
	n := *fuzzJob.Spec.Completions
	s := j.Spec
	assert.Empty(t, s.CompletionMode)
	require.NotNil(t, s.BackoffLimit)
	assert.Equal(t, 0, *s.BackoffLimit, "the merge is a function of the files: no retry")
	assert.Equal(t, "Never", s.Template.Spec.RestartPolicy)
	pod := s.Template.Spec
	c := pod.Containers[0]
	assert.Equal(t, fuzzJob.Spec.Template.Spec.Containers[0].Image, c.Image, "one image for both steps")
	want := []string{"fuzz", "merge"}
	for k := range n {
		want = append(want, "/results/"+strconv.Itoa(k))
	}
	want = append(want, "--out", "/results/merged")
	assert.Equal(t, want, c.Args, "every shard 0..N-1 of the fuzz Job, by name")
	merge := newFuzzMergeCmd()
	require.NoError(t, merge.ParseFlags(c.Args[2:]))
	assert.Equal(t, "/results/merged", merge.Flags().Lookup("out").Value.String())

	subPath := func(jb job) string {
		for _, m := range jb.Spec.Template.Spec.Containers[0].VolumeMounts {
			if m.MountPath == "/results" {
				return m.SubPath
			}
		}
		return ""
	}
	assert.Equal(t, subPath(fuzzJob), subPath(j), "the merge reads the folder the shards wrote")
	assert.NotEmpty(t, subPath(j))
	checkVolumes(t, pod, map[string]string{"results": "pvc:amr-results"})
	checkNonRoot(t, pod)
}

func checkVolumes(t *testing.T, pod podSpec, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, v := range pod.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			got[v.Name] = "pvc:" + v.PersistentVolumeClaim.ClaimName
		case v.EmptyDir != nil:
			got[v.Name] = "emptyDir"
		}
	}
	assert.Equal(t, want, got)
}

// checkNonRoot holds a pod to the Dockerfile's user and to no privileges.
func checkNonRoot(t *testing.T, pod podSpec) {
	t.Helper()
	_, _, user, _ := dockerfile(t, "Dockerfile")
	uid, _, _ := strings.Cut(user, ":")
	sc := pod.SecurityContext
	require.NotNil(t, sc.RunAsNonRoot)
	assert.True(t, *sc.RunAsNonRoot)
	require.NotNil(t, sc.RunAsUser)
	assert.Equal(t, uid, strconv.Itoa(*sc.RunAsUser), "the pod runs as the image's user")
	assert.NotZero(t, *sc.RunAsUser)
	assert.Equal(t, "RuntimeDefault", sc.SeccompProfile.Type)
	c := pod.Containers[0].SecurityContext
	require.NotNil(t, c.AllowPrivilegeEscalation)
	assert.False(t, *c.AllowPrivilegeEscalation)
	require.NotNil(t, c.ReadOnlyRootFilesystem)
	assert.True(t, *c.ReadOnlyRootFilesystem)
	assert.Equal(t, []string{"ALL"}, c.Capabilities.Drop)
}

func TestTheImageIsAStaticAmrOnANonRootBase(t *testing.T) {
	froms, runs, user, entrypoint := dockerfile(t, "Dockerfile")
	require.GreaterOrEqual(t, len(froms), 2, "multi-stage: a build stage and the image")
	assert.True(t, strings.HasPrefix(froms[0], "golang:"), "the build stage: %s", froms[0])
	assert.True(t, strings.HasSuffix(froms[0], " AS build"), froms[0])
	final := froms[len(froms)-1]
	assert.True(t, strings.HasPrefix(final, "gcr.io/distroless/static") || final == "scratch", "the image's base has no shell and no C library: %s", final)
	built := slices.ContainsFunc(runs, func(r string) bool {
		return strings.Contains(r, "CGO_ENABLED=0") && strings.Contains(r, "go build") && strings.Contains(r, "./cmd/amr")
	})
	assert.True(t, built, "amr is built as a static binary")
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.Atoi(uid)
	require.NoError(t, err, "USER is numeric, so runAsNonRoot can check it: %q", user)
	assert.NotZero(t, n, "the image does not run as root")
	assert.Equal(t, `["/usr/local/bin/amr"]`, entrypoint)

	froms, _, implUser, implEntry := dockerfile(t, "Dockerfile.impl")
	require.Len(t, froms, 1)
	assert.Equal(t, "${AMR_IMAGE}", froms[0])
	assert.Equal(t, user, implUser, "the layered image keeps the user")
	assert.Equal(t, entrypoint, implEntry)
	data, err := os.ReadFile(deployFile("Dockerfile.impl"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "ARG AMR_IMAGE=amr-bench/amr:"+version)
	assert.Contains(t, string(data), "/impl/responder", "where the fuzz Job's --impl-cmd looks")
}
