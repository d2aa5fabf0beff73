package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
)

// ExportCmd writes every row the tenant owns in the export format (JSON
// lines, continuity.ExportFormat).
type ExportCmd struct {
	Out string `type:"path" help:"Write the export to FILE instead of stdout; the bottle files then go beside it, in FILE.bottles.tar.gz." placeholder:"FILE"`
}

// ImportCmd reads an export into the tenant, which must own nothing yet.
type ImportCmd struct {
	File string `arg:"" type:"existingfile" help:"The export to import ('-' reads stdin); a missing file or a directory is a usage error." placeholder:"FILE"`
}

// ForgetCmd erases everything the tenant owns: its rows, and the bottle
// files and archives under BATON_HOME.
type ForgetCmd struct {
	Yes bool `help:"Confirm: erase every row of the tenant and the local bottles; this cannot be undone."`
}

// bottlesTarSuffix names the tarball of bottle files an export writes beside
// its file.
const bottlesTarSuffix = ".bottles.tar.gz"

// Validate refuses an --out that is a directory before anything is
// written (the bottles' tarball would be renamed beside it, and then the
// export could not be), and one that would write a file not named (see
// outFile).
func (c *ExportCmd) Validate() error {
	return outFile(c.Out)
}

// tenantData returns the API's export, import and erase, which only the
// local store offers.
func tenantData(api continuity.API) (continuity.TenantData, error) {
	td, ok := api.(continuity.TenantData)
	if !ok {
		return nil, errors.New("export, import and forget need the local store (BATON_DSN), not a server")
	}
	return td, nil
}

// Run writes the export to stdout or to --out, then the bottles' tarball
// beside it, and prints the rows it wrote by table on stderr. With --out
// both files are written to temporary siblings and renamed over their
// paths only once both are whole, so an export that fails or is stopped
// leaves what an earlier one wrote there.
func (c *ExportCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	td, err := tenantData(api)
	if err != nil {
		return err
	}
	if c.Out == "" {
		res, err := td.Export(ctx, env.Stdout)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "exported %s\n", rowCounts(res.Rows))
		return nil
	}
	home, err := env.home()
	if err != nil {
		return err
	}
	var res continuity.ExportResult
	export, err := writeTemp(c.Out, func(w io.Writer) (err error) {
		res, err = td.Export(ctx, w)
		return err
	})
	if err != nil {
		return err
	}
	defer os.Remove(export)
	var n int
	tarball, err := writeTemp(c.Out+bottlesTarSuffix, func(w io.Writer) (err error) {
		n, err = tarBottles(home, w)
		return err
	})
	if err != nil {
		return fmt.Errorf("the bottles could not be archived: %w", err)
	}
	defer os.Remove(tarball)
	if err := os.Rename(tarball, c.Out+bottlesTarSuffix); err != nil {
		return fmt.Errorf("the bottles could not be archived: %w", err)
	}
	if err := os.Rename(export, c.Out); err != nil {
		return fmt.Errorf("--out: %s cannot be replaced: %s", c.Out, pathReason(err))
	}
	fmt.Fprintf(env.Stderr, "exported %s\n", rowCounts(res.Rows))
	fmt.Fprintf(env.Stderr, "copied %d bottle files to %s\n", n, runes.VisibleInLine(c.Out+bottlesTarSuffix))
	return nil
}

// writeTemp writes a temporary sibling of path (mode 0600) with write,
// syncs it and returns its name, for the caller to rename over path; when
// anything fails it removes it.
func writeTemp(path string, write func(w io.Writer) error) (name string, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// Its error names the temporary file, which is no path the
		// person gave.
		return "", fmt.Errorf("--out: %s cannot be written: %s", path, pathReason(err))
	}
	fw := &fileWriter{f: f}
	err = write(fw)
	if fw.err != nil {
		// The file refused a write (a full disk, a size limit): the
		// caller's error says only that its output could not be written.
		err = fmt.Errorf("--out: %s cannot be written: %s", path, pathReason(fw.err))
	}
	if err == nil {
		// On the disk before it is renamed over an earlier export: a
		// crash after the rename must not leave an empty file in its
		// place.
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// fileWriter writes to f and keeps the first error a write of it met.
type fileWriter struct {
	f   *os.File
	err error
}

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// Run imports the file and prints the rows it wrote by table.
func (c *ImportCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	td, err := tenantData(api)
	if err != nil {
		return err
	}
	r := env.Stdin
	if f, ok := r.(*os.File); ok && c.File == "-" {
		// The import's own read error says only that it could not read.
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return errors.New("import: stdin is a directory: give the export as FILE, or redirect it from a file")
		}
	}
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	res, err := td.Restore(ctx, r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "imported %s\n", rowCounts(res.Rows))
	return err
}

// Run erases the tenant's rows, then the local bottles (Home/bottles,
// archives included), and says what it removed.
func (c *ForgetCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	if !c.Yes {
		return errors.New("forget erases every row of the tenant and the local bottles, and cannot be undone: run it again with --yes")
	}
	td, err := tenantData(api)
	if err != nil {
		return err
	}
	home, err := env.home()
	if err != nil {
		return err
	}
	// Removing the bottles directory when it is a symbolic link removes the
	// link and leaves every bottle where it points, while saying they are
	// gone; deleting what it points at could delete what is not baton's.
	// Either way forget refuses before it erases anything.
	dir := (&bottle.Bottler{Home: home}).Dir()
	if target, link := linkTarget(dir); link {
		return fmt.Errorf("the bottles directory %s is a symbolic link to %s, which forget does not follow: remove the bottles there and the link yourself, then run forget again", dir, target)
	}
	res, err := td.Erase(ctx, continuity.EraseParams{})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "erased %d rows\n", res.Deleted)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("the bottles could not be removed: %w", err)
	}
	_, err = fmt.Fprintf(env.Stdout, "removed the bottles under %s\n", runes.VisibleInLine(dir))
	return err
}

// rowCounts renders counts by table in the export's table order.
func rowCounts(rows map[string]int) string {
	total := 0
	var parts []string
	for _, t := range continuity.ExportTables {
		total += rows[t]
		parts = append(parts, fmt.Sprintf("%s %d", t, rows[t]))
	}
	return fmt.Sprintf("%d rows (%s)", total, strings.Join(parts, ", "))
}

// tarBottles writes the bottle files under home (Home/bottles: each
// bottle's index and pages, and the archives) to w as a gzipped tarball,
// named relative to home, and returns how many files it holds. The locks,
// parse caches and clear points beside the bottles are not the tenant's
// data and are left out.
func tarBottles(home string, w io.Writer) (n int, err error) {
	dir := (&bottle.Bottler{Home: home}).Dir()
	// A bottles directory that is a symbolic link is where the bottler
	// writes: the walk, which never follows a link, starts at its target
	// and names the files as under dir.
	root := dir
	if target, link := linkTarget(dir); link {
		if root, err = filepath.EvalSymlinks(dir); err != nil {
			return 0, fmt.Errorf("the bottles directory is a symbolic link to %s, which cannot be read: %w", target, err)
		}
	}
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && path == root:
			return fs.SkipAll // no bottles yet
		case err != nil:
			return err
		case !d.Type().IsRegular() || bottle.IsLocalState(d.Name()):
			return nil
		}
		n++
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		return addFile(tw, path, filepath.Join(filepath.Base(dir), rel))
	})
	return n, errors.Join(err, tw.Close(), zw.Close())
}

// linkTarget reports whether path is a symbolic link, and where it points.
func linkTarget(path string) (string, bool) {
	target, err := os.Readlink(path)
	return target, err == nil
}

// addFile writes the file at path to the tarball as rel (a path relative
// to home), with forward slashes whatever the platform.
func addFile(tw *tar.Writer, path, rel string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	hdr, err := tar.FileInfoHeader(fi, "")
	if err != nil {
		return err
	}
	hdr.Name = filepath.ToSlash(rel)
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(tw, src)
	return err
}
