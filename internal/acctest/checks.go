package acctest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// check is a StateCheck that looks at a store only; Terraform's state is not read.
type check func(ctx context.Context) error

func (c check) CheckState(ctx context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = c(ctx)
}

// FileHolds checks that store holds exactly want at path.
func FileHolds(store Store, path, want string) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		got, ok, err := store.Read(ctx, path)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("%s: %s is missing, want %q", store, path, want)
		case string(got) != want:
			return fmt.Errorf("%s: %s holds %q, want %q", store, path, got, want)
		}
		return nil
	})
}

// FileMissing checks that store holds no file at path.
func FileMissing(store Store, path string) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		got, ok, err := store.Read(ctx, path)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("%s: %s should not exist; it holds %q", store, path, got)
		}
		return nil
	})
}

// FileMatches checks that store holds a file at path and that match, given its content, says
// nothing against it; match's error is reported with the store and the path.
func FileMatches(store Store, path string, match func(content string) error) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		got, ok, err := store.Read(ctx, path)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("%s: %s is missing", store, path)
		}
		if err := match(string(got)); err != nil {
			return fmt.Errorf("%s: %s: %w", store, path, err)
		}
		return nil
	})
}

// SameContent checks that store holds every one of paths, all with the same bytes.
func SameContent(store Store, paths ...string) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		var first []byte
		for i, p := range paths {
			got, ok, err := store.Read(ctx, p)
			switch {
			case err != nil:
				return err
			case !ok:
				return fmt.Errorf("%s: %s is missing", store, p)
			case i > 0 && string(got) != string(first):
				return fmt.Errorf("%s: %s differs from %s", store, p, paths[0])
			}
			if i == 0 {
				first = got
			}
		}
		return nil
	})
}

// FolderHolds checks that the files whose path starts with prefix are exactly want, whatever
// their content; want is given in any order.
func FolderHolds(store Store, prefix string, want ...string) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		files, err := store.Files(ctx)
		if err != nil {
			return err
		}
		var got []string
		for _, p := range files {
			if strings.HasPrefix(p, prefix) {
				got = append(got, p)
			}
		}
		return sameList(fmt.Sprintf("%s: %s", store, prefix), got, want)
	})
}

// HoldsExactly checks that store holds exactly the files of want, each with its content, and
// nothing else.
func HoldsExactly(store Store, want map[string]string) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		files, err := store.Files(ctx)
		if err != nil {
			return err
		}
		paths := make([]string, 0, len(want))
		for p := range want {
			paths = append(paths, p)
		}
		if err := sameList(store.String(), files, paths); err != nil {
			return err
		}
		checks := make([]statecheck.StateCheck, len(files))
		for i, p := range files {
			checks[i] = FileHolds(store, p, want[p])
		}
		return Check(ctx, checks...)
	})
}

// sameList says how got and want differ as sets of paths, or nil if they do not.
func sameList(where string, got, want []string) error {
	got, want = sorted(got), sorted(want)
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return nil
	}
	return fmt.Errorf("%s holds\n  %s\nwant exactly\n  %s", where, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// All is checks as one: it runs every one of them and reports their failures joined, so that a
// composition of checks (a fleet of destinations, say) is one value.
func All(checks ...statecheck.StateCheck) statecheck.StateCheck {
	return check(func(ctx context.Context) error { return Check(ctx, checks...) })
}

// Check runs checks outside resource.Test, for the tests that drive the Terraform CLI
// themselves, and returns their failures joined, or nil. They get no state: the checks of this
// package need none.
func Check(ctx context.Context, checks ...statecheck.StateCheck) error {
	var errs []error
	for _, c := range checks {
		var resp statecheck.CheckStateResponse
		c.CheckState(ctx, statecheck.CheckStateRequest{}, &resp)
		errs = append(errs, resp.Error)
	}
	return errors.Join(errs...)
}

// AsCheckFunc is checks as one TestCheckFunc, for the places that take no StateCheck
// (TestCase.CheckDestroy).
func AsCheckFunc(checks ...statecheck.StateCheck) resource.TestCheckFunc {
	return func(*terraform.State) error { return Check(context.Background(), checks...) }
}

// Run is Check that reports each failure on t.
func Run(t testing.TB, checks ...statecheck.StateCheck) {
	t.Helper()
	for _, c := range checks {
		if err := Check(context.Background(), c); err != nil {
			t.Error(err)
		}
	}
}
