package provider

import (
	"errors"
	"reflect"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// The first object to find a store down reports, for every object that joins while it settles;
// another location is another outage.
func TestOutagesJoin(t *testing.T) {
	t.Parallel()
	var o outages
	first, reported := o.join("s3://a/b", `Destination "w2"`)
	if !first {
		t.Fatal("the first object to join does not report")
	}
	if again, _ := o.join("s3://a/b", `Destination "w1"`); again {
		t.Error("a second object on the same store reports too")
	}
	if other, _ := o.join("s3://c/d", `Destination "w3"`); !other {
		t.Error("the first object on another store does not report")
	}
	if got, want := reported(), []string{`Destination "w1"`, `Destination "w2"`}; !reflect.DeepEqual(got, want) {
		t.Errorf("reported %q, want %q", got, want)
	}
}

func TestStoreWide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&statestore.Error{Kind: statestore.KindNetwork, Err: errors.New("refused")}, true},
		{&statestore.Error{Kind: statestore.KindMissingBranch, Err: errors.New("no main")}, true},
		{&statestore.Error{Kind: statestore.KindAccessDenied, Err: errors.New("prefix")}, false},
		{&statestore.Error{Kind: statestore.KindOther, Err: errors.New("500")}, false},
		{errors.New("plain"), false},
	} {
		if got := storeWide(c.err); got != c.want {
			t.Errorf("storeWide(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
