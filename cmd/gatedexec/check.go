package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the check implementation.
func newCheckCmd() *cobra.Command {
	return &cobra.Command{Use: "check", RunE: func(*cobra.Command, []string) error { return errors.New("check: not built yet") }}
}

// PLACEHOLDER: replaced by the rules implementation.
func newRulesCmd() *cobra.Command {
	return &cobra.Command{Use: "rules", RunE: func(*cobra.Command, []string) error { return errors.New("rules: not built yet") }}
}
