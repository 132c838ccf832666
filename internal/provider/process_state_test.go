package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestProcessStateIsTheOnlyRegistry: of what Configure builds, only processState may hold
// state that operations share and change (anything guarded by a lock, a sync.Map or a
// sync.Once); the rest of providerData is the provider block's configuration, read only. A new
// registry added beside the others fails here until it moves into processState.
func TestProcessStateIsTheOnlyRegistry(t *testing.T) {
	t.Parallel()
	shared := map[reflect.Type]bool{
		reflect.TypeFor[sync.Mutex](): true, reflect.TypeFor[sync.RWMutex](): true,
		reflect.TypeFor[sync.Map](): true, reflect.TypeFor[sync.Once](): true,
	}
	var holds func(reflect.Type, map[reflect.Type]bool) bool
	holds = func(ty reflect.Type, seen map[reflect.Type]bool) bool {
		if shared[ty] {
			return true
		}
		if seen[ty] {
			return false
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			return holds(ty.Elem(), seen) || ty.Kind() == reflect.Map && holds(ty.Key(), seen)
		case reflect.Struct:
			for f := range ty.Fields() {
				if holds(f.Type, seen) {
					return true
				}
			}
		}
		return false
	}
	pd := reflect.TypeFor[providerData]()
	found := false
	for f := range pd.Fields() {
		if f.Type == reflect.TypeFor[processState]() {
			found = true
			continue
		}
		if holds(f.Type, map[reflect.Type]bool{}) {
			t.Errorf("providerData.%s (%s) holds shared mutable state outside processState", f.Name, f.Type)
		}
	}
	if !found {
		t.Fatal("providerData does not hold a processState")
	}
	// The check sees a registry: every field of processState but folders holds a lock.
	for f := range reflect.TypeFor[processState]().Fields() {
		if f.Name != "folders" && !holds(f.Type, map[reflect.Type]bool{}) {
			t.Errorf("processState.%s (%s) holds no lock: the check above would not see it", f.Name, f.Type)
		}
	}
}

// TestProcessStateIsDocumented: each registry says why it exists, who writes it and who reads
// it, in its field's comment.
func TestProcessStateIsDocumented(t *testing.T) {
	t.Parallel()
	file, err := parser.ParseFile(token.NewFileSet(), "process_state.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var fields int
	ast.Inspect(file, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "processState" {
			return true
		}
		for _, f := range ts.Type.(*ast.StructType).Fields.List {
			fields++
			doc := strings.ToLower(f.Doc.Text())
			for _, want := range []string{"why:", "writ", "read"} {
				if !strings.Contains(doc, want) {
					t.Errorf("processState.%s: its comment does not say %q:\n%s", f.Names[0].Name, want, f.Doc.Text())
				}
			}
		}
		return false
	})
	if fields != reflect.TypeFor[processState]().NumField() {
		t.Errorf("found %d documented fields, processState has %d", fields, reflect.TypeFor[processState]().NumField())
	}
}
