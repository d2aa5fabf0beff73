package sqlstore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestModelsNameTheirTables reads this package's source: every struct that
// embeds bun.BaseModel names its table in the tag (bun:"table:NAME"), so no
// query depends on the table name bun would derive from the model's name.
// The baton binary relies on it to skip bun's pluralizing rules
// (examples/baton keepModelNames).
func TestModelsNameTheirTables(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	models := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := spec.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				sel, ok := field.Type.(*ast.SelectorExpr)
				if !ok || len(field.Names) != 0 || sel.Sel.Name != "BaseModel" {
					continue
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "bun" {
					continue
				}
				models++
				tag := ""
				if field.Tag != nil {
					tag = reflect.StructTag(strings.Trim(field.Tag.Value, "`")).Get("bun")
				}
				if table, ok := strings.CutPrefix(tag, "table:"); !ok || strings.Split(table, ",")[0] == "" {
					t.Errorf("%s: model %s embeds bun.BaseModel with tag %q: name its table (bun:\"table:NAME\")",
						fset.Position(field.Pos()), spec.Name.Name, tag)
				}
			}
			return true
		})
	}
	if models == 0 {
		t.Fatal("no model embedding bun.BaseModel found: the test reads the wrong files")
	}
	t.Logf("%d models name their tables", models)
}
