//go:build ignore

// shape checks the size limits the code holds itself to (issue 14): no
// package over 3,000 lines of production code, and no production function
// over 80 lines or of cyclomatic complexity over 25. Tests, testdata and
// bench/ are not production code. It prints the ten longest and the ten
// most complex functions and the largest packages, and exits 1 if a limit
// is broken.
//
//	go run .ci/shape.go [-top N] [dir]
//
// Complexity is counted as gocyclo counts it: 1, plus one for each if,
// for, range, non-default case or select clause, && and ||.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const (
	maxPackageLines  = 3000
	maxFunctionLines = 80
	maxComplexity    = 25
)

type function struct {
	name        string
	pos         string
	lines, cplx int
}

func main() {
	top := flag.Int("top", 10, "how many of each to list")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	pkgLines := map[string]int{}
	var funcs []function
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkgLines[filepath.Dir(path)] += fset.File(f.Pos()).LineCount()
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			funcs = append(funcs, function{
				name:  funcName(fd),
				pos:   fmt.Sprintf("%s:%d", path, start.Line),
				lines: end.Line - start.Line + 1,
				cplx:  complexity(fd),
			})
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(2)
	}
	bad := 0
	list := func(title string, key func(function) int, limit int) {
		slices.SortStableFunc(funcs, func(a, b function) int { return cmp.Compare(key(b), key(a)) })
		fmt.Printf("%s (limit %d):\n", title, limit)
		for i, f := range funcs {
			over := key(f) > limit
			if i >= *top && !over {
				break
			}
			mark := ""
			if over {
				mark, bad = "  over the limit", bad+1
			}
			fmt.Printf("  %4d  %-40s %s%s\n", key(f), f.name, f.pos, mark)
		}
	}
	list("longest functions, lines", func(f function) int { return f.lines }, maxFunctionLines)
	list("most complex functions, cyclomatic complexity", func(f function) int { return f.cplx }, maxComplexity)
	type pkg struct {
		dir   string
		lines int
	}
	var pkgs []pkg
	for d, n := range pkgLines {
		pkgs = append(pkgs, pkg{d, n})
	}
	slices.SortFunc(pkgs, func(a, b pkg) int { return cmp.Compare(b.lines, a.lines) })
	fmt.Printf("largest packages, lines of production code (limit %d):\n", maxPackageLines)
	for i, p := range pkgs {
		over := p.lines > maxPackageLines
		if i >= *top && !over {
			break
		}
		mark := ""
		if over {
			mark, bad = "  over the limit", bad+1
		}
		fmt.Printf("  %5d  %s%s\n", p.lines, p.dir, mark)
	}
	if bad > 0 {
		fmt.Printf("shape: %d over the limits\n", bad)
		os.Exit(1)
	}
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// complexity is gocyclo's count for one function, closures included.
func complexity(fd *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fd, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}
