package health

import (
	"fmt"
	"testing"
)

// BenchmarkParse1000 parses one small record file per destination for 1,000 destinations: a
// promise's record and one request's, with Flux's revision in the details, as an agent writes them.
func BenchmarkParse1000(b *testing.B) {
	files := make([][]byte, 1000)
	paths := make([]string, len(files))
	for i := range files {
		paths[i] = fmt.Sprintf("health/worker-%04d/redis.yaml", i)
		files[i] = fmt.Appendf(nil, `apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
metadata: {name: redis-worker-%04d, namespace: kratix-platform-system}
data:
  promiseRef: {name: redis}
  state: healthy
  lastRun: %d
  details:
    flux: {lastAppliedRevision: main@sha1:0123456789abcdef0123456789abcdef01234567}
---
apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
metadata: {name: my-db-worker-%04d, namespace: default}
data:
  promiseRef: {name: redis}
  resourceRef: {name: my-db, namespace: default, generation: 3}
  state: ready
  lastRun: %d
`, i, 1764230400+i, i, 1764230400+i)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for i, f := range files {
			records, err := Parse(paths[i], f)
			if err != nil {
				b.Fatal(err)
			}
			n += len(records)
		}
		if n != 2000 {
			b.Fatalf("parsed %d records, want 2000", n)
		}
	}
}
