package provider

// Faults in the model-based test: a store goes down during a random apply, and comes back before
// the next. The reference model cannot say exactly what a failed apply leaves (Terraform stops
// at the first failing resource and skips what depends on it), but it can say what must never
// happen, and what the apply after it must reach:
//
//   - the store that was down is exactly as it was;
//   - every file the model holds before the step and after it, with the same bytes in the same
//     store (a kept file), is still there after the failed apply;
//   - no kept file is deleted on the wire (a DELETE request to a bucket, a commit that removes it
//     from a repository) by the failed apply or by the apply that recovers from it: a GitOps
//     agent that prunes would take it off its cluster in between (but in the folder of a
//     destination the step replaces with cleanup = "all", which empties it by design);
//   - a request the step moves off a drained destination (NoExecute) is, after the failed apply,
//     whole where it was or whole where it goes, never in neither place (make before break;
//     refmodel's DrainProblems, plain files only: an aggregate's documents are not checked);
//   - after the recovering apply, the stores hold what the model says, as after any step, and
//     the next plan is empty.
//
// A bucket is taken down by its s3Recorder, which then drops every connection; a repository by a
// pre-receive hook that refuses every push. The plan is made while the store is up (a plan with a
// store down fails before it writes anything), and the apply runs that saved plan.
//
// Steps during a rollout in flight, and steps that start or change one, get no fault: the model
// advances a rollout by one wave per apply, and whether a failed apply completed its wave depends
// on which store the wave's destinations are on (a wave that fails somewhere is
// TestAccRolloutWaveFailsPartly's business). Promises with a rollout block still take part in
// every other faulted step.
//
// Which step and which store, and which files are kept, are the model's (refmodel/fault.go); this
// file takes the store down and checks the stores and the wire.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
)

// down makes a store unreachable for the provider: every connection to the bucket's recorder is
// dropped, every push to the repository refused.
func (c *modelConn) down(t *testing.T, store int) {
	t.Helper()
	if c.Kind == "bucket" {
		c.recorders[store].down.Store(true)
		return
	}
	hook := filepath.Join(gitServer.RepoPath(c.Names[store]), "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'model: store down' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func (c *modelConn) up(t *testing.T, store int) {
	t.Helper()
	if c.Kind == "bucket" {
		c.recorders[store].down.Store(false)
		return
	}
	hook := filepath.Join(gitServer.RepoPath(c.Names[store]), "hooks", "pre-receive")
	if err := os.Remove(hook); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// wireMark is how far each store's history had gone: the number of writes a bucket's recorder
// had seen, or a repository's tip.
type wireMark [2]string

func (c *modelConn) wireMark(t *testing.T) wireMark {
	t.Helper()
	var m wireMark
	for i, name := range c.Names {
		if c.Kind == "bucket" {
			w, _ := c.recorders[i].snapshot()
			m[i] = fmt.Sprint(len(w))
			continue
		}
		tip, err := exec.Command("git", "--git-dir", gitServer.RepoPath(name), "rev-parse", "refs/heads/main").Output()
		if err != nil {
			t.Fatalf("git rev-parse in %s: %v", name, err)
		}
		m[i] = strings.TrimSpace(string(tip))
	}
	return m
}

// keptDeleted lists the kept files that were deleted since mark: DELETE requests on the wire, or
// commits that remove them.
func (c *modelConn) keptDeleted(t *testing.T, mark wireMark, kept [2]map[string][]byte) []string {
	t.Helper()
	var out []string
	for i, name := range c.Names {
		if c.Kind == "bucket" {
			var from int
			_, _ = fmt.Sscan(mark[i], &from)
			w, _ := c.recorders[i].snapshot()
			for _, write := range w[from:] {
				if key, ok := strings.CutPrefix(write, "DELETE "); ok && kept[i][key] != nil {
					out = append(out, fmt.Sprintf("store %d: DELETE %s, a file the model keeps", i, key))
				}
			}
			continue
		}
		log, err := exec.Command("git", "--git-dir", gitServer.RepoPath(name), "log", "--diff-filter=D", "--name-only", "--format=commit %h %s", mark[i]+"..refs/heads/main").Output()
		if err != nil {
			t.Fatalf("git log in %s: %v", name, err)
		}
		commit := ""
		for _, line := range strings.Split(string(log), "\n") {
			switch {
			case strings.HasPrefix(line, "commit "):
				commit = strings.TrimPrefix(line, "commit ")
			case line != "" && kept[i][line] != nil:
				out = append(out, fmt.Sprintf("store %d: %s removed by %s, a file the model keeps", i, line, commit))
			}
		}
	}
	return out
}

// modelFault is what the runner saw of an apply with a store down.
type modelFault struct {
	before, snap      [2]map[string][]byte // the stores before the failed apply, and after it
	mark, recoverMark wireMark             // the stores' history before it, and after it
	out               string               // what the failed apply printed
	failed            bool
}

// downUnchanged checks that the store that was down is exactly as it was.
func (c *modelConn) downUnchanged(down int, before, after map[string]string) []string {
	var out []string
	prefix := fmt.Sprintf("%d:", down)
	if c.Kind != "bucket" {
		prefix = fmt.Sprintf("%d@", down)
	}
	for _, k := range tfvalue.SortedKeys(before) {
		if strings.HasPrefix(k, prefix) && after[k] != before[k] {
			out = append(out, fmt.Sprintf("store %d was down, but %s changed", down, k))
		}
	}
	for _, k := range tfvalue.SortedKeys(after) {
		if _, ok := before[k]; !ok && strings.HasPrefix(k, prefix) {
			out = append(out, fmt.Sprintf("store %d was down, but %s appeared", down, k))
		}
	}
	return out
}

// faultProblems checks, once the model knows what the step keeps, that the failed apply left
// every kept file in place and deleted none on the wire, and that the apply after it deleted
// nothing that the failed apply had written as the model wants it.
func (c *modelConn) faultProblems(t *testing.T, f modelFault, kept, recovered [2]map[string][]byte) []string {
	t.Helper()
	var out []string
	for store := range 2 {
		for _, p := range tfvalue.SortedKeys(kept[store]) {
			if got, ok := f.snap[store][p]; !ok || !bytes.Equal(got, kept[store][p]) {
				out = append(out, fmt.Sprintf("store %d: %s, which the model keeps, is %s after the failed apply", store, p, map[bool]string{false: "gone", true: "changed"}[ok]))
			}
		}
	}
	out = append(out, c.keptDeleted(t, f.mark, kept)...)
	out = append(out, c.keptDeleted(t, f.recoverMark, recovered)...)
	slices.Sort(out)
	return slices.Compact(out)
}
