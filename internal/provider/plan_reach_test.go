package provider

import (
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// Issue 38, point 5: a promise's plan enters few of this package's files, and the pool is read
// in few. Both are measured on the source, by static calls and function references (a method
// called through an interface is not followed):
//
//   - the files of this package (not its subpackages: storeconfig, schemautil and the other
//     rooms) holding a function that promiseResource.ModifyPlan reaches; at most
//     promisePlanFileLimit;
//   - the files that read the pool: those holding a function that uses poolMemberModel (a pool
//     element's model), and those holding the storeconfig readers (FromObject, FromAttributes)
//     such a function calls; at most poolReaderFileLimit.
//
// Both limits are the issue's: a file that joins the plan's path must take another's place, or
// the concern it holds gets a room of its own (see DESIGN.md).
const (
	promisePlanFileLimit = 12
	poolReaderFileLimit  = 2
)

const providerPath = "github.com/promise-platform/terraform-provider-kratix/internal/provider"

func TestPromisePlanFileCount(t *testing.T) {
	t.Parallel()
	idx := loadFuncIndex(t)
	files := idx.reachedFiles(t, "promiseResource", "ModifyPlan")
	var own []string
	for _, f := range files {
		if filepath.Dir(f) == "." {
			own = append(own, f)
		}
	}
	t.Logf("promiseResource.ModifyPlan reaches %d files of internal/provider: %v (and %v)", len(own), own, subtract(files, own))
	if len(own) > promisePlanFileLimit {
		t.Errorf("promiseResource.ModifyPlan reaches %d files of internal/provider, more than %d: %v\n"+
			"(give the new collaborator a room of its own, as storeconfig and schedattr are, or call what a file already reached has)",
			len(own), promisePlanFileLimit, own)
	}

	readers := idx.poolReaderFiles(t)
	t.Logf("the pool is read in %d files: %v", len(readers), readers)
	if len(readers) > poolReaderFileLimit {
		t.Errorf("the pool is read in %d files, more than %d: %v\n(read it through pool.go's poolFromList or lenientPool)",
			len(readers), poolReaderFileLimit, readers)
	}
}

func subtract(all, some []string) []string {
	var out []string
	for _, f := range all {
		if !slices.Contains(some, f) {
			out = append(out, f)
		}
	}
	return out
}

// funcIndex is every function declared in the non-test files of internal/provider and its
// subpackages, with its declaration and the file (relative to internal/provider) it is in.
type funcIndex struct {
	decls map[*types.Func]*ast.FuncDecl
	infos map[*types.Func]*types.Info
	files map[*types.Func]string
	byKey map[string]*types.Func // "Recv.Name" or "Name", for this package's own functions
}

func loadFuncIndex(t *testing.T) *funcIndex {
	t.Helper()
	if _, err := os.Stat("promise_resource.go"); err != nil {
		t.Skip("the source of internal/provider is not here (run the test from its folder): ", err)
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{Dir: dir, Tests: false,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	idx := &funcIndex{decls: map[*types.Func]*ast.FuncDecl{}, infos: map[*types.Func]*types.Info{},
		files: map[*types.Func]string{}, byKey: map[string]*types.Func{}}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("loading %s: %v", p.PkgPath, e)
		}
		for _, f := range p.Syntax {
			name, err := filepath.Rel(dir, p.Fset.Position(f.Pos()).Filename)
			if err != nil || strings.HasSuffix(name, "_test.go") {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				obj, _ := p.TypesInfo.Defs[fd.Name].(*types.Func)
				if obj == nil {
					continue
				}
				idx.decls[obj], idx.infos[obj], idx.files[obj] = fd, p.TypesInfo, name
				if p.PkgPath == providerPath {
					idx.byKey[funcKey(fd)] = obj
				}
			}
		}
	}
	return idx
}

// funcKey is "Recv.Name" for a method (the receiver's type name, pointer or not), else "Name".
func funcKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// callees is the functions of the index that fn's body calls or refers to.
func (idx *funcIndex) callees(fn *types.Func) []*types.Func {
	var out []*types.Func
	ast.Inspect(idx.decls[fn], func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if obj, ok := idx.infos[fn].Uses[id].(*types.Func); ok {
			if obj = obj.Origin(); idx.decls[obj] != nil {
				out = append(out, obj)
			}
		}
		return true
	})
	return out
}

// reachedFiles is the files, sorted, holding a function that recv.name reaches.
func (idx *funcIndex) reachedFiles(t *testing.T, recv, name string) []string {
	t.Helper()
	root := idx.byKey[recv+"."+name]
	if root == nil {
		t.Fatalf("%s.%s is not declared in internal/provider", recv, name)
	}
	seen := map[*types.Func]bool{root: true}
	for queue := []*types.Func{root}; len(queue) > 0; queue = queue[1:] {
		for _, c := range idx.callees(queue[0]) {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	return idx.fileSet(seen)
}

// poolReaderFiles is the files, sorted, that read the pool: those holding a function that uses
// poolMemberModel, and those holding the storeconfig readers such a function calls.
func (idx *funcIndex) poolReaderFiles(t *testing.T) []string {
	t.Helper()
	readers := map[*types.Func]bool{}
	found := false
	for fn, fd := range idx.decls {
		uses := false
		ast.Inspect(fd, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if tn, ok := idx.infos[fn].Uses[id].(*types.TypeName); ok && tn.Name() == "poolMemberModel" && tn.Pkg().Path() == providerPath {
					uses = true
				}
			}
			return !uses
		})
		if !uses {
			continue
		}
		found = true
		readers[fn] = true
		for _, c := range idx.callees(fn) {
			if c.Pkg().Path() == providerPath+"/storeconfig" && (c.Name() == "FromObject" || c.Name() == "FromAttributes") {
				readers[c] = true
			}
		}
	}
	if !found {
		t.Fatal("no function uses poolMemberModel: the pool's element model was renamed, and this test with it")
	}
	return idx.fileSet(readers)
}

func (idx *funcIndex) fileSet(fns map[*types.Func]bool) []string {
	set := map[string]bool{}
	for fn := range fns {
		set[idx.files[fn]] = true
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}
