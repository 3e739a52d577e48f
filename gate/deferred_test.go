package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/sandbox"
)

// TestResumedEscalation: a kept plan is used only for the exec request it
// was made for and only when its escalation id is the approved one; a
// plan edited since (another grant) is ignored, never applied.
func TestResumedEscalation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deferred")
	o := &call{Request: Request{Argv: []string{"touch", "/var/tmp/x"}, Cwd: "/w"}, DeferredDir: dir}
	req := approval.Request{ID: "0123456789abcdef0123456789abcdef", ProfileDigest: "pd"}
	plan := &sandbox.Escalation{Changes: []sandbox.Change{{Kind: sandbox.GrantWrite, Path: "/var/tmp"}}}
	id := approval.RequestID(approval.IDParts{Argv: o.Argv, Cwd: o.Cwd, Profile: "workspace-write", ProfileDigest: "pd", PolicyDigest: "policy", Escalation: plan.String()})
	if err := o.saveEscalation(id, req.ID, plan, nil); err != nil {
		t.Fatal(err)
	}
	o.Approve = []string{id}
	if got, _, ok := o.resumedEscalation(req, "workspace-write", "policy"); !ok || got.String() != plan.String() {
		t.Fatalf("kept plan not resumed: %v %v", got, ok)
	}
	for name, mod := range map[string]func(o *call, r *approval.Request){
		"other exec request": func(_ *call, r *approval.Request) { r.ID = "ffffffffffffffffffffffffffffffff" },
		"other argv":         func(o *call, _ *approval.Request) { o.Argv = []string{"touch", "/var/tmp/y"} },
		"denied too":         func(o *call, _ *approval.Request) { o.Deny = []string{id} },
		"not approved":       func(o *call, _ *approval.Request) { o.Approve = nil },
	} {
		o2, r2 := *o, req
		mod(&o2, &r2)
		if _, _, ok := o2.resumedEscalation(r2, "workspace-write", "policy"); ok {
			t.Errorf("%s: plan resumed", name)
		}
	}
	// A plan granting more than the approved id says is not applied.
	wider := &sandbox.Escalation{Changes: []sandbox.Change{{Kind: sandbox.GrantWrite, Path: "/"}}}
	if err := o.saveEscalation(id, req.ID, wider, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := o.resumedEscalation(req, "workspace-write", "policy"); ok {
		t.Error("an edited plan was resumed")
	}
	o.dropEscalation(id)
	if _, err := os.Stat(filepath.Join(dir, id+".json")); !os.IsNotExist(err) {
		t.Errorf("plan not dropped: %v", err)
	}
}
