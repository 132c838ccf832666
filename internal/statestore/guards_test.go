package statestore

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
)

// guardStores are a bucket and a repository with a reader of what each holds (an independent
// client: plain minio-go, the git CLI).
func guardStores(t *testing.T) map[string]struct {
	store func() Store // a new provider process each call
	holds func() map[string]string
} {
	_, client, bucket := testBucket(t)
	srv := testMinIO(t)
	bare := bareRepo(t, true)
	return map[string]struct {
		store func() Store
		holds func() map[string]string
	}{
		"bucket": {
			store: func() Store {
				s, err := NewPool().Bucket(rootConfig(srv.Endpoint, bucket, srv.AccessKey, srv.SecretKey))
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			holds: func() map[string]string { return objects(t, client, bucket) },
		},
		"git": {
			store: func() Store { return fileStore(t, NewPool(), bare) },
			holds: func() map[string]string {
				out := map[string]string{}
				for _, p := range lsTree(t, bare) {
					if p == "README.md" {
						continue // the seed
					}
					out[p], _ = show(t, bare, p)
				}
				return out
			},
		},
	}
}

// A guarded change is made only while each guarded path holds what the writer read: absent,
// or content with a given MD5. Otherwise none of it is made and the error is ErrGuard.
func TestGuards(t *testing.T) {
	ctx := context.Background()
	const owner = "o/r.yaml"
	for kind, s := range guardStores(t) {
		t.Run(kind, func(t *testing.T) {
			st := s.store()
			first := Change{Message: "first", Put: map[string][]byte{owner: []byte("a\n"), "f/1.yaml": []byte("1\n")},
				Guards: map[string]string{owner: ""}}
			if _, err := st.Apply(ctx, first); err != nil {
				t.Fatalf("a change guarded on an absent file, which is absent: %v", err)
			}
			again := Change{Message: "again", Put: map[string][]byte{owner: []byte("b\n"), "f/2.yaml": []byte("2\n")},
				Guards: map[string]string{owner: ""}}
			_, err := s.store().Apply(ctx, again)
			if !errors.Is(err, ErrGuard) || kindOf(err) != KindConflict {
				t.Fatalf("a change guarded on an absent file that is there: err = %v, want ErrGuard", err)
			}
			want := map[string]string{owner: "a\n", "f/1.yaml": "1\n"}
			if got := s.holds(); !maps.Equal(got, want) {
				t.Fatalf("after the refused change the store holds %v, want %v (none of it made)", got, want)
			}
			// "a\n" has MD5 60b725f10c9c85c70d97880dfe8191b3.
			wrong := Change{Message: "wrong", Put: map[string][]byte{owner: []byte("c\n")}, Delete: []string{"f/1.yaml"},
				Guards: map[string]string{owner: "0123456789abcdef0123456789abcdef"}}
			if _, err := s.store().Apply(ctx, wrong); !errors.Is(err, ErrGuard) {
				t.Fatalf("a change guarded on other content: err = %v, want ErrGuard", err)
			}
			if got := s.holds(); !maps.Equal(got, want) {
				t.Fatalf("after the refused change the store holds %v, want %v", got, want)
			}
			right := Change{Message: "right", Put: map[string][]byte{owner: []byte("c\n")}, Delete: []string{"f/1.yaml"},
				Guards: map[string]string{owner: "60b725f10c9c85c70d97880dfe8191b3"}}
			if _, err := s.store().Apply(ctx, right); err != nil {
				t.Fatalf("a change guarded on the content there: %v", err)
			}
			want = map[string]string{owner: "c\n"}
			if got := s.holds(); !maps.Equal(got, want) {
				t.Fatalf("the store holds %v, want %v", got, want)
			}
		})
	}
}

// Writers that read an owner record absent at once and race to take it: exactly one does.
func TestGuardsRace(t *testing.T) {
	ctx := context.Background()
	for kind, s := range guardStores(t) {
		t.Run(kind, func(t *testing.T) {
			const n = 6
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				st := s.store()
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = st.Apply(ctx, Change{Message: "race", Guards: map[string]string{"race/r.yaml": ""},
						Put: map[string][]byte{"race/r.yaml": {byte('a' + i), '\n'}, "race/f" + string(rune('a'+i)) + ".yaml": []byte("x\n")}})
				}()
			}
			wg.Wait()
			won := -1
			for i, err := range errs {
				switch {
				case err == nil && won >= 0:
					t.Fatalf("writers %d and %d both took the record", won, i)
				case err == nil:
					won = i
				case !errors.Is(err, ErrGuard):
					t.Fatalf("writer %d: %v, want ErrGuard or success", i, err)
				}
			}
			if won < 0 {
				t.Fatal("no writer took the record")
			}
			w := string(rune('a' + won))
			want := map[string]string{"race/r.yaml": w + "\n", "race/f" + w + ".yaml": "x\n"}
			got := map[string]string{}
			for p, c := range s.holds() {
				if len(p) > 5 && p[:5] == "race/" {
					got[p] = c
				}
			}
			if !maps.Equal(got, want) {
				t.Fatalf("the store holds %v, want only the winner's files %v", got, want)
			}
		})
	}
}
