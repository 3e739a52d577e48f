// Package auditlog reads gatedexec's audit logs for security teams
// (DESIGN §11): it streams their records (Scan), keeps those a Filter
// selects, counts them (Summary) and turns recorded denials and prompts
// into the narrowest rule and profile changes that would have allowed
// them (Suggester), as text to review. It never writes a log: every file
// is opened read-only, and memory stays flat however long the log is.
package auditlog
