package statestore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGitLargeRepository: a hundred destinations of 1.9 MiB each, the size Kratix users reach
// with big dependency bundles. Writing one of them must cost about one file, not the repository.
func TestGitLargeRepository(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("writes 190 MiB; skipped with -short and -race")
	}
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	put := map[string][]byte{}
	for i := range 100 {
		put[fmt.Sprintf("dest-%03d/dependencies/bundle.yaml", i)] = largeManifest(i, 1900*1024)
	}

	// The bounds are on processor time, not on the clock: with other builds on both cores a write
	// waits for its turn on them, but it does not do more work. Where processor time cannot be
	// read, the clock is used.
	timed := func(what string, limit time.Duration, fn func() error) {
		t.Helper()
		start := time.Now()
		cpu0, measured := cpuTime()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		wall := time.Since(start)
		d := wall
		if cpu1, ok := cpuTime(); measured && ok {
			d = cpu1 - cpu0
		}
		t.Logf("%s: %v of processor time, %v on the clock", what, d, wall)
		if d > limit {
			t.Errorf("%s took %v, want under %v", what, d, limit)
		}
	}
	timed("first Apply of 100 x 1.9 MiB", 40*time.Second, func() error {
		_, err := s.Apply(ctx, Change{Message: "Update from: big", Put: put})
		return err
	})
	one := map[string][]byte{"dest-050/dependencies/bundle.yaml": append(put["dest-050/dependencies/bundle.yaml"], "x: 1\n"...)}
	timed("Apply changing one file", 3*time.Second, func() error {
		res, err := s.Apply(ctx, Change{Message: "Update from: one", Put: one})
		if err == nil && len(res.Written) != 1 {
			err = fmt.Errorf("wrote %v", res.Written)
		}
		return err
	})
	timed("Apply changing nothing", 3*time.Second, func() error {
		res, err := s.Apply(ctx, Change{Message: "Update from: none", Put: one})
		if err == nil && res.Changed() {
			err = fmt.Errorf("changed %+v", res)
		}
		return err
	})
	if n := len(repoOf(s).md5s); n != 0 {
		t.Errorf("Apply read %d blobs; it needs none", n)
	}
	paths := make([]string, 0, len(put))
	for p := range put {
		paths = append(paths, p)
	}
	timed("Hashes of 100 files, cold", 5*time.Second, func() error {
		h, err := s.Hashes(ctx, paths)
		if err == nil && len(h) != 100 {
			err = fmt.Errorf("%d hashes", len(h))
		}
		return err
	})
	timed("Hashes of 100 files, warm", time.Second, func() error {
		_, err := s.Hashes(ctx, paths)
		return err
	})
	timed("a second process: clone and Apply", 20*time.Second, func() error {
		_, err := fileStore(t, NewPool(), bare).Apply(ctx, Change{Message: "Update from: two",
			Put: map[string][]byte{"dest-051/kratix-canary.yaml": []byte("x")}})
		return err
	})
	if n := commits(t, bare); n != 4 {
		t.Errorf("%d commits, want 4", n)
	}
}

// largeManifest is YAML of about size bytes, different for each seed.
func largeManifest(seed, size int) []byte {
	var b strings.Builder
	b.Grow(size + 64)
	for b.Len() < size {
		fmt.Fprintf(&b, "- name: item-%d-%d\n  value: %x\n", seed, b.Len(), b.Len()*7919+seed)
	}
	return []byte(b.String())
}
