package sqlstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestModelsListed: models names every struct of the package that bun
// maps to a table, so Open warms each one's metadata.
func TestModelsListed(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var mapped []string
	for _, pkg := range pkgs {
		ast.Inspect(pkg, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, f := range st.Fields.List {
				if f.Tag != nil && strings.Contains(f.Tag.Value, `bun:"table:`) {
					mapped = append(mapped, ts.Name.Name)
				}
			}
			return true
		})
	}
	var listed []string
	for _, m := range models {
		listed = append(listed, reflect.TypeOf(m).Elem().Name())
	}
	slices.Sort(mapped)
	slices.Sort(listed)
	if len(mapped) == 0 || !slices.Equal(mapped, listed) {
		t.Errorf("models lists %v; the package maps %v", listed, mapped)
	}
}
