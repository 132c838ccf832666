package acctest

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// Journal is the test's own record of what the provider wrote to one store, kept outside the
// provider: for a bucket, the requests a recording proxy between the provider and the server
// saw; for a repository, the commits on its branch.
type Journal interface {
	// String names the store in failure messages.
	String() string
	// Writes lists the provider's writes so far, oldest first, one string each: "PUT <key>" or
	// "DELETE <key>" for a bucket, a commit's subject for a repository.
	Writes(ctx context.Context) ([]string, error)
	// Requests is how many requests of any kind the provider has sent to the store, and true;
	// or false when the journal cannot see them (a repository's reads leave no trace).
	Requests() (int, bool)
}

// Mark is how far a journal had gone at one moment. The zero Mark is the journal's start.
type Mark struct {
	// Writes is how many writes the journal held.
	Writes int
	// Requests is how many requests it had counted; 0 when it counts none.
	Requests int
}

// MarkNow is where j stands now.
func MarkNow(ctx context.Context, j Journal) (Mark, error) {
	w, err := j.Writes(ctx)
	if err != nil {
		return Mark{}, err
	}
	m := Mark{Writes: len(w)}
	m.Requests, _ = j.Requests()
	return m, nil
}

// WritesAfter lists the writes j recorded after m, oldest first, but those of the registry's
// records (GitOpsOnly).
func WritesAfter(ctx context.Context, j Journal, m Mark) ([]string, error) {
	w, err := j.Writes(ctx)
	if err != nil {
		return nil, err
	}
	if m.Writes > len(w) {
		return nil, fmt.Errorf("%s: the mark is at write %d, but the journal holds only %d", j, m.Writes, len(w))
	}
	return GitOpsOnly(w[m.Writes:]), nil
}

// SetMark is a check that always passes and sets *m to where j stands when it runs: a step's
// ConfigStateChecks can mark the end of its apply for a later step's NoWritesSince or
// WritesSince.
func SetMark(j Journal, m *Mark) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		now, err := MarkNow(ctx, j)
		if err != nil {
			return err
		}
		*m = now
		return nil
	})
}

// NoWritesSince checks that the provider wrote nothing to j's store after *m. m is read when the
// check runs, so a PreConfig or an earlier step may set it. When j counts requests, the check
// also asks that the provider sent at least one meanwhile (a refresh reads the store): a journal
// that saw no request at all would see no write whatever happened, and the check would pass for
// nothing. A journal that counts no requests is judged on its writes alone.
func NoWritesSince(j Journal, m *Mark) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		w, err := WritesAfter(ctx, j, *m)
		if err != nil {
			return err
		}
		if len(w) > 0 {
			return fmt.Errorf("%s: the store was written: %v", j, w)
		}
		if n, counted := j.Requests(); counted && n == m.Requests {
			return fmt.Errorf("%s: the provider sent no request to the store at all, so no write could be seen", j)
		}
		return nil
	})
}

// WritesSince checks that the writes to j's store after *m are exactly want, in any order (a
// bucket's parallel PUTs come in any order). m is read when the check runs.
func WritesSince(j Journal, m *Mark, want ...string) statecheck.StateCheck {
	return check(func(ctx context.Context) error {
		got, err := WritesAfter(ctx, j, *m)
		if err != nil {
			return err
		}
		got, w := sorted(got), sorted(want)
		if strings.Join(got, "\n") != strings.Join(w, "\n") || len(got) != len(w) {
			return fmt.Errorf("%s: the writes were\n  %s\nwant\n  %s", j, strings.Join(got, "\n  "), strings.Join(w, "\n  "))
		}
		return nil
	})
}
