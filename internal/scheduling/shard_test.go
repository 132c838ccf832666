package scheduling

import (
	"fmt"
	"testing"
)

// The expected shards were computed apart from this package: SHA-256 of name, a zero byte and
// "shard-<i>", the first 8 bytes big-endian, the largest wins (a few lines of Python's hashlib).
func TestShard(t *testing.T) {
	for _, c := range []struct {
		name string
		want []int // for 1, 2, 3, 4 and 8 shards
	}{
		{"worker-1", []int{0, 0, 0, 0, 0}},
		{"worker-2", []int{0, 1, 2, 2, 2}},
		{"eu-west-1-a", []int{0, 0, 0, 0, 6}},
		{"us-east-2-prod-17", []int{0, 1, 1, 1, 1}},
		{"dev", []int{0, 1, 1, 1, 1}},
	} {
		for i, n := range []int{1, 2, 3, 4, 8} {
			if got := Shard(c.name, n); got != c.want[i] {
				t.Errorf("Shard(%q, %d) = %d, want %d", c.name, n, got, c.want[i])
			}
		}
	}
	if Shard("worker-2", 0) != 0 || Shard("worker-2", -3) != 0 {
		t.Errorf("fewer than one shard should count as one")
	}
}

// From N shards to N+1, over 4,000 names: only names that go to the new shard move, about
// 4000/(N+1) of them (within 20%), and every shard holds about 4000/N names (within 20%).
func TestShardMovesFewNames(t *testing.T) {
	const names = 4000
	for n := 1; n <= 16; n++ {
		moved, count := 0, make([]int, n)
		for i := range names {
			name := fmt.Sprintf("destination-%d", i)
			before, after := Shard(name, n), Shard(name, n+1)
			count[before]++
			if before == after {
				continue
			}
			moved++
			if after != n {
				t.Fatalf("%s moved from shard %d to %d growing %d shards to %d, not to the new shard", name, before, after, n, n+1)
			}
		}
		t.Logf("%2d -> %2d shards: %4d of %d names moved (%.1f%%; 1/(N+1) = %.1f%%), shard sizes %v", n, n+1, moved, names,
			100*float64(moved)/names, 100/float64(n+1), count)
		if want := float64(names) / float64(n+1); float64(moved) < 0.8*want || float64(moved) > 1.2*want {
			t.Errorf("growing %d shards to %d moved %d names, want about %.0f", n, n+1, moved, want)
		}
		for s, c := range count {
			if want := float64(names) / float64(n); float64(c) < 0.8*want || float64(c) > 1.2*want {
				t.Errorf("with %d shards, shard %d holds %d names, want about %.0f", n, s, c, want)
			}
		}
	}
}
