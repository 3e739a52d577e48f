package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/internal/snapshot"
)

func newTrustCmd() *cobra.Command {
	var revoke, show bool
	var digest string
	cmd := &cobra.Command{
		Use:   "trust [--revoke | --show | --digest HEX] [DIR]",
		Short: "Trust (or stop trusting) a workspace's own .gatedexec/ configuration layer",
		Long: `Trust (or stop trusting) a workspace's own .gatedexec/ configuration layer.

trust lists every entry of the layer and records its digest: any change to
the layer needs trust again. --show lists and prints the digest without
trusting; --digest then trusts only if the layer still has the digest you
reviewed, so that a file changed in between is not trusted unseen.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if revoke && (show || digest != "") || show && digest != "" {
				return withCode(exitUsage, errors.New("--revoke, --show and --digest exclude each other"))
			}
			pf := placeFlags{}
			if len(args) == 1 {
				pf.cwd = args[0]
			}
			pl, err := pf.resolve()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			dirs, err := config.DefaultDirs(os.Getenv, pl.Workspace)
			if err != nil {
				return withCode(exitConfig, err)
			}
			store := &config.TrustStore{Dir: dirs.TrustDir()}
			switch {
			case revoke:
				if err := store.Revoke(pl.Workspace); err != nil {
					return withCode(exitInternal, err)
				}
				fmt.Fprintf(out, "no longer trusted: %s\n", pl.Workspace)
				return nil
			case show:
				tree, err := config.LayerSnapshot(pl.Workspace)
				if err != nil {
					return withCode(exitConfig, err)
				}
				writeLayer(out, tree)
				return nil
			}
			tree, err := store.Trust(pl.Workspace, digest)
			switch {
			case errors.Is(err, config.ErrBadDigest):
				return withCode(exitUsage, fmt.Errorf("--digest: %w", err))
			case errors.Is(err, config.ErrDigestMismatch), errors.Is(err, config.ErrBadLayer):
				return withCode(exitConfig, err)
			case err != nil:
				return withCode(exitInternal, err)
			}
			writeLayer(out, tree)
			fmt.Fprintf(out, "trusted: %s\n", pl.Workspace)
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the workspace")
	cmd.Flags().BoolVar(&show, "show", false, "list the layer and print its digest; trust nothing")
	cmd.Flags().StringVar(&digest, "digest", "", "trust only if the layer's digest is `HEX` (all 64 digits, as --show prints)")
	return cmd
}

// writeLayer lists what a trust of tree covers: each entry, quoted when
// its name could mislead, and the digest.
func writeLayer(w io.Writer, tree *snapshot.Tree) {
	fmt.Fprintf(w, "%s:\n", displayName(tree.Root()))
	entries := tree.Entries()
	if len(entries) == 0 {
		fmt.Fprintln(w, "  (empty)")
	}
	for _, e := range entries {
		what := ""
		switch {
		case e.Dangling:
			what = "dangling link"
		case e.Mode.IsDir():
			what = "directory"
		case e.Mode.IsRegular():
			what = strconv.FormatInt(e.Size, 10) + " bytes"
		default:
			what = "not a regular file (" + e.Mode.Type().String() + ")"
		}
		if e.Link != "" {
			what = "-> " + displayName(e.Link) + ", " + what
		}
		fmt.Fprintf(w, "  %s  %s\n", displayName(e.Path), what)
	}
	fmt.Fprintf(w, "digest: %s\n", tree.Digest())
}

// displayName quotes a name holding anything but printable ASCII other
// than a quote or backslash: a newline or an escape sequence in a file
// name must not be able to draw a different listing.
func displayName(s string) string {
	for _, c := range []byte(s) {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == ' ' {
			return strconv.Quote(s)
		}
	}
	return s
}
