package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
)

// keysFile declares the private-state keys.
const keysFile = "privstate/keys.go"

// TestPrivateKeysAreAllListed: every key the package passes to SetKey or GetKey is a constant
// declared in privstate/keys.go (keysFile) and listed once in privstate.Keys, which the fast
// path (fast_path.go, tfserver's Kind.PrivateKeys) reads back from the private state it hands to ModifyPlan and
// Create (a key missing there would be dropped from a planned private state); and every constant
// of privstate/keys.go is listed. It reads this package's files and privstate's.
func TestPrivateKeysAreAllListed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if more, err2 := filepath.Glob("privstate/*.go"); err2 == nil {
		files = append(files, more...)
	}
	if err != nil {
		t.Fatal(err)
	}
	type constant struct{ value, file string }
	consts := map[string]constant{}
	var used []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[name.Name] = constant{strings.Trim(lit.Value, `"`), f}
						}
					}
				}
			case *ast.CallExpr:
				var fn string
				switch fun := n.Fun.(type) {
				case *ast.SelectorExpr:
					fn = fun.Sel.Name
				case *ast.Ident:
					fn = fun.Name
				}
				if fn != "SetKey" && fn != "GetKey" || len(n.Args) < 2 {
					return true
				}
				id, ok := n.Args[1].(*ast.Ident)
				if sel, isSel := n.Args[1].(*ast.SelectorExpr); isSel {
					if pkg, isPkg := sel.X.(*ast.Ident); isPkg && pkg.Name == "privstate" {
						id, ok = sel.Sel, true
					}
				}
				switch {
				case ok:
					used = append(used, id.Name)
				default:
					t.Errorf("%s: %s with a key that is not a named constant", fset.Position(n.Pos()), fn)
				}
			}
			return true
		})
	}
	listed := map[string]int{}
	for _, k := range privstate.Keys {
		listed[k]++
	}
	for k, n := range listed {
		if n != 1 {
			t.Errorf("privstate.Keys lists %q %d times", k, n)
		}
	}
	if len(used) < 2*len(privstate.Keys) {
		t.Fatalf("found %d key uses, fewer than a SetKey and a GetKey per listed key (%d): the search is broken", len(used), 2*len(privstate.Keys))
	}
	for _, name := range used {
		c := consts[name]
		if c.file != keysFile {
			t.Errorf("private state key %s is declared in %q, not in %s", name, c.file, keysFile)
		}
		if listed[c.value] == 0 {
			t.Errorf("private state key %s (%q) is not in privstate.Keys", name, c.value)
		}
	}
	var declared []string
	for name, c := range consts {
		if c.file == keysFile {
			declared = append(declared, c.value)
			if listed[c.value] == 0 {
				t.Errorf("%s declares %s (%q), which privstate.Keys does not list", keysFile, name, c.value)
			}
		}
	}
	if len(declared) != len(privstate.Keys) {
		slices.Sort(declared)
		t.Errorf("%s declares %v, privstate.Keys lists %v", keysFile, declared, privstate.Keys)
	}
}
