package gate

import (
	"github.com/gatedexec/gatedexec/profiles"
	"github.com/gatedexec/gatedexec/sandbox/linux"
)

// DoctorReport is what this host supports and what each built-in profile
// would get on it (`gatedexec doctor`).
type DoctorReport struct {
	Host     linux.Capabilities `json:"host"`
	Profiles []DoctorProfile    `json:"profiles"`
}

// DoctorProfile is one built-in profile's layers on this host.
type DoctorProfile struct {
	Name    string   `json:"name"`
	Layers  []string `json:"layers"`
	Missing []string `json:"missing"`
	Error   string   `json:"error,omitempty"`
}

// Doctor probes the host once and plans every built-in profile, as
// resolved at pl, on it.
func Doctor(pl Place) (*DoctorReport, error) {
	caps := HostCapabilities()
	rep := &DoctorReport{Host: caps}
	l, err := ProfileLoader(pl)
	if err != nil {
		return nil, err
	}
	for _, name := range profiles.BuiltinNames() {
		dp := DoctorProfile{Name: name, Layers: []string{}, Missing: []string{}}
		p, err := l.Resolve(name)
		if err != nil {
			dp.Error = err.Error()
		} else {
			layers, missing := PlanLayers(p, caps)
			dp.Layers = append(dp.Layers, layers...)
			dp.Missing = append(dp.Missing, missing...)
		}
		rep.Profiles = append(rep.Profiles, dp)
	}
	return rep, nil
}
