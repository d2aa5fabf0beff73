package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/batonhq/baton/internal/runes"
)

// verbatimArgs makes the command line keep every string argument's bytes.
// kong's own mappers copy a value through encoding/json, which rewrites
// bytes that are not UTF-8 to U+FFFD: a file name that is not UTF-8 (legal
// on Unix) would name another file, one --out would then create, and text
// the service refuses as not UTF-8 would be stored rewritten instead. These
// mappers take the argument as given; the path types keep kong's meaning
// (~/ and relative paths made absolute, an existing file or directory
// checked), and refuse an empty path, which kong would read as the working
// directory, a path blank or with space at either end (taken as typed, " "
// or "out.jsonl " names a file beside the one meant, which --out would then
// create), and a file's path ending in a separator.
func verbatimArgs() kong.Option {
	return kong.OptionFunc(func(k *kong.Kong) error {
		for _, opt := range []kong.Option{
			kong.KindMapper(reflect.String, kong.MapperFunc(decodeString)),
			kong.NamedMapper("path", pathMapper(true, nil)),
			kong.NamedMapper("existingfile", pathMapper(true, func(fi os.FileInfo, path string) error {
				if fi.IsDir() {
					return fmt.Errorf("%s is a directory, not a file", path)
				}
				return nil
			})),
			kong.NamedMapper("existingdir", pathMapper(false, func(fi os.FileInfo, path string) error {
				if !fi.IsDir() {
					return fmt.Errorf("%s is not a directory", path)
				}
				return nil
			})),
		} {
			if err := opt.Apply(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// popString pops the next value as the string it was given.
func popString(ctx *kong.DecodeContext) (string, error) {
	t, err := ctx.Scan.PopValue("string")
	if err != nil {
		return "", err
	}
	if s, ok := t.Value.(string); ok {
		return s, nil
	}
	var s string // a typed default or a configuration value: kong's way
	ctx.Scan.PushToken(t)
	return s, ctx.Scan.PopValueInto("string", &s)
}

// decodeString sets a string from its argument, byte for byte.
func decodeString(ctx *kong.DecodeContext, target reflect.Value) error {
	s, err := popString(ctx)
	if err != nil {
		return err
	}
	target.SetString(s)
	return nil
}

// pathMapper maps a path argument as kong's path types do, byte for byte;
// check, when set, is run on the existing file the path names. A path of a
// file (every "path" and "existingfile" of baton's is one) may not end in
// a separator: kong would clean "new/" to "new", and --out would write a
// file where the person named a directory.
func pathMapper(file bool, check func(fi os.FileInfo, path string) error) kong.MapperFunc {
	return func(ctx *kong.DecodeContext, target reflect.Value) error {
		if target.Kind() != reflect.String {
			return fmt.Errorf("a path must be a string, not %s", target.Type())
		}
		path, err := popString(ctx)
		if err != nil {
			return err
		}
		switch {
		case path == "":
			return errors.New("the path is empty")
		case strings.TrimSpace(path) == "":
			return errors.New("the path is blank")
		case strings.TrimSpace(path) != path:
			return errors.New("the path has space at its start or end: it is taken as typed, so give it without the space")
		case file && len(path) > 1 && os.IsPathSeparator(path[len(path)-1]):
			return fmt.Errorf("%s ends in a separator, which names a directory: name a file", runes.VisibleInLine(path))
		}
		if path != "-" {
			path = kong.ExpandPath(path)
			if check != nil {
				fi, err := os.Stat(path)
				if err != nil {
					return err
				}
				if err := check(fi, path); err != nil {
					return err
				}
			}
		}
		target.SetString(path)
		return nil
	}
}
