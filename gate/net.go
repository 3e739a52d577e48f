package gate

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// withNetworkRules returns prof with the rules files' network_rule entries
// added to its host policy, when its network mode is "proxy": both are
// host rules, merged by severity (a forbidden network_rule denies a host
// the profile allows, and the other way round).
func withNetworkRules(prof *sandbox.Profile, rules []execpolicy.NetworkRule) *sandbox.Profile {
	if prof.Network != sandbox.NetworkProxy || len(rules) == 0 {
		return prof
	}
	q := *prof
	q.Hosts.Rules = append([]egress.Rule(nil), prof.Hosts.Rules...)
	for _, r := range rules {
		d := egress.Allow
		switch r.Decision {
		case execpolicy.Prompt:
			d = egress.Prompt
		case execpolicy.Forbidden:
			d = egress.Deny
		}
		// A network_rule names one host (or address): its private
		// answers are meant, unless an approval wrote it.
		q.Hosts.Rules = append(q.Hosts.Rules, egress.Rule{Pattern: hostPattern(r.Host), Decision: d, Source: r.Source,
			Private: d == egress.Allow && !r.PublicOnly(), NarrowOnly: r.NarrowOnly})
	}
	return &q
}

// hostPattern returns the network_rule host as the proxy compares it: an
// address in the one spelling it judges a dialled address by ("::1" for
// "0:0::1", "10.0.0.1" for "::ffff:10.0.0.1"), else the name. Spelt any
// other way, a forbidden rule for an address would never match it, and an
// allow beside it would win.
func hostPattern(host string) string {
	if a, err := netip.ParseAddr(host); err == nil && a.Zone() == "" {
		return a.Unmap().String()
	}
	return host
}

// proposedHost returns host when an "always" answer about it would append
// a network_rule that counts, "" otherwise: then "always" is not offered
// (Request.ProposedHost), since an answer that changes nothing would tell
// the person their rule was written when every later run asks again.
// Without a rules file to write (allow_user_rules = false) there is none,
// and under a managed allowed_profiles the user's allow network_rules are
// dropped.
func (o *call) proposedHost(host string) string {
	if o.AmendFile == "" || o.Ceiling.dropsNetworkAllows() {
		return ""
	}
	return host
}

// netHooks connect the proxy of a run to the approval step and the audit
// log: a prompt rule asks the approver about exactly that host and port,
// and every connection is a record beside the command's.
func (o *call) netHooks(ev execpolicy.Evaluation, req approval.Request, rec approval.Record) sandbox.NetHooks {
	return sandbox.NetHooks{
		Ask: func(ctx context.Context, host string, port uint16) bool {
			nreq := req
			nreq.Kind = approval.KindEscalation
			nreq.Escalation = "connections to " + net.JoinHostPort(host, strconv.Itoa(int(port))) + " (a prompt network rule)"
			nreq.ProposedRule, nreq.ProposedHost, nreq.Connecting = nil, o.proposedHost(host), true
			nreq.ID = approval.RequestID(approval.IDParts{Argv: o.argv(), Cwd: o.Cwd, Profile: req.Profile, ProfileDigest: req.ProfileDigest,
				PolicyDigest: o.PolicyDigest(), Escalation: nreq.Escalation, ManagedDigest: req.ManagedDigest})
			ans, err := o.settle(ctx, approval.Ask, ev, &nreq, approval.Naming(o.Approve, nreq.ID), approval.Naming(o.Deny, nreq.ID))
			nrec := rec
			nrec.RequestID, nrec.Kind, nrec.Escalation, nrec.Exit, nrec.Denials = nreq.ID, nreq.Kind, nreq.Escalation, nil, nil
			nrec.Approver, nrec.Outcome, nrec.Reason, nrec.Time = ans.By, ans.Outcome, ans.Reason, time.Now()
			if err != nil {
				nrec.Error = err.Error()
			}
			o.audit(nrec)
			return err == nil && ans.Outcome.Approves()
		},
		Record: func(c egress.Record) {
			nrec := rec
			nrec.Kind, nrec.Time, nrec.Decision, nrec.Connection = approval.KindConnection, c.Start, c.Decision, &c
			nrec.Exit, nrec.Denials, nrec.Layers, nrec.Action, nrec.Approver, nrec.Outcome, nrec.Reason = nil, nil, nil, "", "", "", ""
			// A record that cannot be written cannot stop a connection
			// already carried; the command's own record says so.
			o.audit(nrec)
		},
	}
}
