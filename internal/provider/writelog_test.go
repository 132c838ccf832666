package provider

import (
	"reflect"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// A delete spares what other instances wrote in this process, never what its own object wrote:
// a destroy after its own create in the same process still removes its files.
func TestWriteLogSparesOnlyOtherWriters(t *testing.T) {
	t.Parallel()
	var l writeLog
	l.record("s3://m/b", "old", []string{"w1/a.yaml", "w1/b.yaml"})
	l.record("s3://m/b", "new", []string{"w1/a.yaml"}) // the successor writes a.yaml again
	l.record("git+x@main", destinationWriter("i2"), []string{"w1/kratix-canary-namespace.yaml"})
	l.record("s3://m/b", "", []string{"w1/ignored.yaml"}) // a delete's write is not logged

	if got, want := l.byOthers("old"), (placement.Successor{
		"s3://m/b":   {"w1/a.yaml"},
		"git+x@main": {"w1/kratix-canary-namespace.yaml"},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("the old object spares %v, want %v", got, want)
	}
	if got, want := l.byOthers("new"), (placement.Successor{
		"s3://m/b":   {"w1/b.yaml"},
		"git+x@main": {"w1/kratix-canary-namespace.yaml"},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("the new object spares %v, want %v", got, want)
	}
	// An object created before tokens existed has none: it spares everything logged.
	if got := l.byOthers(""); len(got["s3://m/b"]) != 2 || len(got["git+x@main"]) != 1 {
		t.Errorf("an object without a token spares %v", got)
	}
	// A destination's cleanup spares what every other writer of the apply wrote: another
	// destination's canaries, and what the promises and requests wrote (finding 2 of issue 37).
	d := &providerData{}
	d.writes.record("s3://m/b", "p", []string{"w1/dependencies/p/5058f/static/p-dependencies.yaml"})
	d.writes.record("s3://m/b", destinationWriter("i2"), []string{"w1/dependencies/kratix-canary-namespace.yaml"})
	if got, want := d.writtenByOthers(destinationWriter("i1")), (placement.Successor{
		"s3://m/b": {"w1/dependencies/kratix-canary-namespace.yaml", "w1/dependencies/p/5058f/static/p-dependencies.yaml"},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("a destination's cleanup spares %v, want %v", got, want)
	}
	if got, want := d.writtenByOthers(destinationWriter("i2")), (placement.Successor{
		"s3://m/b": {"w1/dependencies/p/5058f/static/p-dependencies.yaml"},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("a destination spares its own canaries: %v, want %v", got, want)
	}
}
