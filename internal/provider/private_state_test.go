package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPrivateKeysAreAllListed: every key the package passes to SetKey or GetKey is a constant
// declared in private_state.go and listed once in privateKeys, which the fast path (fast_path.go,
// tfserver's Kind.PrivateKeys) reads back from the private state it hands to ModifyPlan and
// Create (a key missing there would be dropped from a planned private state); and every constant
// of private_state.go is listed.
func TestPrivateKeysAreAllListed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
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
	for _, k := range privateKeys {
		listed[k]++
	}
	for k, n := range listed {
		if n != 1 {
			t.Errorf("privateKeys lists %q %d times", k, n)
		}
	}
	if len(used) < 2*len(privateKeys) {
		t.Fatalf("found %d key uses, fewer than a SetKey and a GetKey per listed key (%d): the search is broken", len(used), 2*len(privateKeys))
	}
	for _, name := range used {
		c := consts[name]
		if c.file != "private_state.go" {
			t.Errorf("private state key %s is declared in %q, not in private_state.go", name, c.file)
		}
		if listed[c.value] == 0 {
			t.Errorf("private state key %s (%q) is not in privateKeys", name, c.value)
		}
	}
	var declared []string
	for name, c := range consts {
		if c.file == "private_state.go" {
			declared = append(declared, c.value)
			if listed[c.value] == 0 {
				t.Errorf("private_state.go declares %s (%q), which privateKeys does not list", name, c.value)
			}
		}
	}
	if len(declared) != len(privateKeys) {
		slices.Sort(declared)
		t.Errorf("private_state.go declares %v, privateKeys lists %v", declared, privateKeys)
	}
}
