package execpolicy

import "testing"

// The thirteenth red-team round: wrappers, launchers and runners the
// engine did not know. Each case named after a program ran, with an allow
// rule for that program alone, a command after the program's options
// while judged allow. The forbidden command is rm (bypassPolicy); whoami
// stands for a command no rule matches.

// TestMPILaunchers: "mpirun.openmpi --allow-run-as-root --oversubscribe
// -np 1 touch f" (Open MPI 4.1.4) and "mpiexec.mpich -np 1 touch f"
// (MPICH 4.0.2 Hydra) ran touch. Both take single-dash long options with
// a value (-np N, -host H, -wdir D) and run further commands after ":"
// (MPMD), each after options of its own. prun (PMIx) and aprun (Cray
// ALPS, -n N CMD : -n N CMD2) from the documentation. --mca, --app,
// -configfile and -launcher-exec, which name programs or files of
// commands, are unknown: unanalysable.
func TestMPILaunchers(t *testing.T) {
	p := round11Policy("mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.mpich", "orterun", "prun", "aprun")
	checkBypass3(t, p, []bypass3Case{
		{"mpirun", "mpirun rm x", Forbidden, 0},
		{"mpirun -np", "mpirun -np 4 rm x", Forbidden, 0},
		{"mpirun -n", "mpirun -n 4 rm x", Forbidden, 0},
		{"mpirun --np", "mpirun --np 4 rm x", Forbidden, 0},
		{"mpirun -H", "mpirun -H a,b rm x", Forbidden, 0},
		{"mpirun --host", "mpirun --host a,b -np 2 rm x", Forbidden, 0},
		{"mpirun -host", "mpirun -host a rm x", Forbidden, 0},
		{"mpirun -x", "mpirun -x PATH -x LD_LIBRARY_PATH rm x", Forbidden, 0},
		{"mpirun -wdir", "mpirun -wdir /tmp rm x", Forbidden, 0},
		{"mpirun flags", "mpirun --allow-run-as-root --oversubscribe -np 1 rm x", Forbidden, 0},
		{"mpirun mpmd", "mpirun -np 1 ./a : -np 1 rm x", Forbidden, 0},
		{"mpirun mpmd bare", "mpirun ./a : rm x", Forbidden, 0},
		{"mpirun unmatched", "mpirun -np 2 whoami", Prompt, 0},
		{"mpirun --mca", "mpirun --mca btl self rm x", Forbidden, 0},
		{"mpirun --mca unmatched", "mpirun --mca plm_rsh_agent ./x -np 1 whoami", Prompt, 0},
		{"mpiexec", "mpiexec -n 2 rm x", Forbidden, 0},
		{"mpiexec.mpich -ppn", "mpiexec.mpich -ppn 1 -hosts a rm x", Forbidden, 0},
		{"mpirun.openmpi", "mpirun.openmpi -np 1 rm x", Forbidden, 0},
		{"orterun", "orterun -np 1 rm x", Forbidden, 0},
		{"prun", "prun -n 2 rm x", Forbidden, 0},
		{"aprun", "aprun -n 4 -N 2 rm x", Forbidden, 0},
		{"aprun mpmd", "aprun -n 1 ./a : -n 1 rm x", Forbidden, 0},
		// Controls.
		{"mpirun --version", "mpirun --version", Allow, 0},
		{"mpirun --help", "mpirun --help", Allow, 0},
		{"mpiexec -help", "mpiexec -help", Allow, 0},
	})
}

// TestSlurm, from the documentation (Slurm 22.05; slurm-client installs
// here but runs nothing without a controller): srun runs CMD after its
// options, and more after ":" (heterogeneous jobs); salloc runs CMD, or
// the user's shell, in the allocation; sbatch --wrap runs its value
// through sh, and reads the batch script from stdin without one.
func TestSlurm(t *testing.T) {
	p := round11Policy("srun", "salloc", "sbatch")
	checkBypass3(t, p, []bypass3Case{
		{"srun", "srun rm x", Forbidden, 0},
		{"srun -N -n", "srun -N 2 -n 4 rm x", Forbidden, 0},
		{"srun long", "srun --ntasks=4 --partition debug -t 10 --pty rm x", Forbidden, 0},
		{"srun het", "srun -n 1 ./a : -n 1 rm x", Forbidden, 0},
		{"srun unmatched", "srun -n 1 whoami", Prompt, 0},
		{"srun --prolog", "srun --prolog=./x -n 1 hostname", Prompt, 0},
		{"salloc", "salloc -N 1 rm x", Forbidden, 0},
		{"salloc shell", "salloc -N 1", Prompt, 0},
		{"sbatch --wrap", "sbatch --wrap='rm x'", Forbidden, 0},
		{"sbatch --wrap next", "sbatch -p debug --wrap 'rm x'", Forbidden, 0},
		{"sbatch stdin", "sbatch -p debug", Prompt, 0},
		{"sbatch script", "sbatch -N 1 job.sh", Prompt, 0},
		// Controls.
		{"srun --version", "srun --version", Allow, 0},
		{"srun --help", "srun --help", Allow, 0},
		{"sbatch --help", "sbatch --help", Allow, 0},
	})
}

// TestPersonalityAndContextWrappers: "setarch x86_64 -R touch f",
// "linux64 --addr-no-randomize touch f", "setarch -R x86_64 touch f" (the
// arch only as the first word) and, given no command, setarch running
// /bin/sh on stdin (util-linux 2.38.1); "cgexec -g cpu:/ touch f"
// (libcgroup 2.0.2); "capsh -- -c 'touch f'", "capsh --print -- -c",
// "capsh -+ -c", "capsh == -- -c", "capsh --shell=/usr/bin/touch -- f"
// and "capsh --" reading stdin (libcap 2.66); "proot -w /tmp touch f"
// (PRoot 5.1.0). runcon (coreutils 9.1) needs SELinux: from the
// documentation (runcon CONTEXT CMD; with -u/-r/-t/-l/-c no CONTEXT).
func TestPersonalityAndContextWrappers(t *testing.T) {
	p := round11Policy("setarch", "linux32", "linux64", "i386", "x86_64", "cgexec", "runcon", "capsh", "proot")
	checkBypass3(t, p, []bypass3Case{
		{"setarch", "setarch x86_64 rm x", Forbidden, 0},
		{"setarch -R", "setarch x86_64 -R rm x", Forbidden, 0},
		{"setarch no arch", "setarch -R rm x", Forbidden, 0},
		{"setarch --", "setarch x86_64 -- rm x", Forbidden, 0},
		{"setarch -3", "setarch i686 -3 rm x", Forbidden, 0},
		{"setarch shell", "setarch x86_64", Prompt, 0},
		{"setarch unmatched", "setarch x86_64 whoami", Prompt, 0},
		{"linux32", "linux32 rm x", Forbidden, 0},
		{"linux64", "linux64 --addr-no-randomize rm x", Forbidden, 0},
		{"i386", "i386 -R rm x", Forbidden, 0},
		{"x86_64", "x86_64 rm x", Forbidden, 0},
		{"linux32 shell", "linux32", Prompt, 0},
		{"cgexec", "cgexec rm x", Forbidden, 0},
		{"cgexec -g", "cgexec -g cpu,memory:/grp rm x", Forbidden, 0},
		{"cgexec --sticky", "cgexec -g cpu:/ --sticky rm x", Forbidden, 0},
		{"cgexec unmatched", "cgexec -g cpu:/ whoami", Prompt, 0},
		{"runcon context", "runcon system_u:system_r:unconfined_t:s0 rm x", Forbidden, 0},
		{"runcon -t", "runcon -t unconfined_t rm x", Forbidden, 0},
		{"runcon unmatched", "runcon u:r:t:s0 whoami", Prompt, 0},
		{"capsh -- -c", "capsh -- -c 'rm x'", Forbidden, 0},
		{"capsh opts -- -c", "capsh --print --drop=cap_net_raw -- -c 'rm x'", Forbidden, 0},
		{"capsh -+", "capsh -+ -c 'rm x'", Forbidden, 0},
		{"capsh ==", "capsh == -- -c 'rm x'", Forbidden, 0},
		{"capsh --shell", "capsh --shell=/bin/rm -- x", Prompt, Forbidden},
		{"capsh stdin", "capsh --", Prompt, 0},
		{"capsh script file", "capsh -- ./s.sh", Prompt, 0},
		{"capsh unmatched", "capsh --user=nobody -- -c whoami", Prompt, 0},
		{"proot", "proot rm x", Forbidden, 0},
		{"proot -w", "proot -w /tmp -b /dev rm x", Forbidden, 0},
		{"proot -r", "proot -r /srv/root -0 rm x", Forbidden, 0},
		{"proot -q", "proot -q 'rm -f' -r r ./a", Forbidden, 0},
		{"proot shell", "proot -r /srv/root", Prompt, 0},
		// Controls.
		{"setarch --list", "setarch --list", Allow, 0},
		{"setarch --version", "setarch --version", Allow, 0},
		{"setarch --help", "setarch --help", Allow, 0},
		{"cgexec --help", "cgexec --help", Allow, 0},
		{"runcon --version", "runcon --version", Allow, 0},
		{"capsh --print", "capsh --print", Allow, 0},
		{"capsh --help", "capsh --help", Allow, 0},
		{"proot --version", "proot --version", Allow, 0},
		{"proot --help", "proot --help", Allow, 0},
	})
}

// TestContainerWrappers, from the documentation (no container can start
// here): schroot -c CHROOT [--] CMD (schroot 1.6.13), lxc-attach -n NAME
// [--] CMD (LXC 5.0.2, whose option list --help printed), systemd-nspawn
// [OPTIONS] CMD (systemd 252; it parsed "-D / -q touch f" and refused the
// root directory), each starting a shell given no command.
func TestContainerWrappers(t *testing.T) {
	p := round11Policy("schroot", "lxc-attach", "systemd-nspawn")
	checkBypass3(t, p, []bypass3Case{
		{"schroot -c", "schroot -c sid rm x", Forbidden, 0},
		{"schroot -c --", "schroot -c sid -u root -- rm x", Forbidden, 0},
		{"schroot shell", "schroot -c sid", Prompt, 0},
		{"schroot unmatched", "schroot -c sid -- whoami", Prompt, 0},
		{"lxc-attach", "lxc-attach -n c1 -- rm x", Forbidden, 0},
		{"lxc-attach bare", "lxc-attach -n c1 rm x", Forbidden, 0},
		{"lxc-attach long", "lxc-attach --name=c1 --clear-env -v A=1 -- rm x", Forbidden, 0},
		{"lxc-attach shell", "lxc-attach -n c1", Prompt, 0},
		{"systemd-nspawn", "systemd-nspawn -D /srv/c rm x", Forbidden, 0},
		{"systemd-nspawn -x", "systemd-nspawn -q -x -D /srv/c --bind=/tmp rm x", Forbidden, 0},
		{"systemd-nspawn -M", "systemd-nspawn -M box -u root rm x", Forbidden, 0},
		{"systemd-nspawn shell", "systemd-nspawn -D /srv/c", Prompt, 0},
		// Controls.
		{"schroot -l", "schroot -l", Allow, 0},
		{"schroot --version", "schroot --version", Allow, 0},
		{"lxc-attach --help", "lxc-attach --help", Allow, 0},
		{"systemd-nspawn --version", "systemd-nspawn --version", Allow, 0},
	})
}

// TestSystemdWrappers, from the documentation and --help (systemd 252;
// both failed here for want of a journal or a bus before running CMD):
// systemd-inhibit [--what= --who= --why= --mode=] CMD and systemd-cat
// [-t ID -p PRIO] CMD.
func TestSystemdWrappers(t *testing.T) {
	p := round11Policy("systemd-inhibit", "systemd-cat")
	checkBypass3(t, p, []bypass3Case{
		{"systemd-inhibit", "systemd-inhibit rm x", Forbidden, 0},
		{"systemd-inhibit opts", "systemd-inhibit --what=idle --why 'long job' rm x", Forbidden, 0},
		{"systemd-inhibit unmatched", "systemd-inhibit whoami", Prompt, 0},
		{"systemd-cat", "systemd-cat rm x", Forbidden, 0},
		{"systemd-cat -t -p", "systemd-cat -t job -p info rm x", Forbidden, 0},
		// Controls: systemd-cat without a command copies stdin.
		{"systemd-cat stdin", "systemd-cat -t job", Allow, 0},
		{"systemd-inhibit --list", "systemd-inhibit --list", Allow, 0},
		{"systemd-inhibit --version", "systemd-inhibit --version", Allow, 0},
		{"systemd-cat --help", "systemd-cat --help", Allow, 0},
	})
}

// TestDaemontoolsWrappers: "chpst -u root touch f", "chpst -/ / -n 1
// touch f" (runit 2.1.2); "softlimit -m N touch f", "envdir d touch f",
// "setlock f touch f", "envuidgid root touch f", "fghack touch f",
// "pgrphack touch f" (daemontools 0.76); s6-setuidgid, s6-envuidgid,
// s6-applyuidgid -u 0, s6-envdir d, s6-softlimit -m N, s6-setlock f,
// s6-setsid and s6-fghack with touch f (s6 2.11.3.2); "tini -w -g --
// touch f" (tini 0.19.0). newgrp GROUP starts a shell reading stdin
// ("echo 'touch f' | newgrp root", shadow 4.13).
func TestDaemontoolsWrappers(t *testing.T) {
	p := round11Policy("chpst", "softlimit", "envdir", "setlock", "envuidgid", "fghack", "pgrphack", "s6-setuidgid", "s6-envuidgid",
		"s6-applyuidgid", "s6-envdir", "s6-softlimit", "s6-setlock", "s6-setsid", "s6-fghack", "newgrp", "tini")
	checkBypass3(t, p, []bypass3Case{
		{"chpst", "chpst rm x", Forbidden, 0},
		{"chpst -u", "chpst -u nobody rm x", Forbidden, 0},
		{"chpst many", "chpst -/ /srv -n 1 -e env -v rm x", Forbidden, 0},
		{"chpst unmatched", "chpst -u nobody whoami", Prompt, 0},
		{"softlimit", "softlimit -m 100000 -t 5 rm x", Forbidden, 0},
		{"envdir", "envdir ./env rm x", Forbidden, 0},
		{"envdir unmatched", "envdir ./env whoami", Prompt, 0},
		{"setlock", "setlock -n lock rm x", Forbidden, 0},
		{"envuidgid", "envuidgid nobody rm x", Forbidden, 0},
		{"fghack", "fghack rm x", Forbidden, 0},
		{"pgrphack", "pgrphack rm x", Forbidden, 0},
		{"s6-setuidgid", "s6-setuidgid nobody rm x", Forbidden, 0},
		{"s6-envuidgid", "s6-envuidgid -n nobody rm x", Forbidden, 0},
		{"s6-applyuidgid", "s6-applyuidgid -u 0 -g 0 -z rm x", Forbidden, 0},
		{"s6-envdir", "s6-envdir -I ./env rm x", Forbidden, 0},
		{"s6-softlimit", "s6-softlimit -m 100000 rm x", Forbidden, 0},
		{"s6-setlock", "s6-setlock -n -t 10 lock rm x", Forbidden, 0},
		{"s6-setsid", "s6-setsid -s rm x", Forbidden, 0},
		{"s6-fghack", "s6-fghack rm x", Forbidden, 0},
		{"tini -w -g --", "tini -w -g -- rm x", Forbidden, 0},
		{"newgrp", "newgrp staff", Prompt, 0},
		{"newgrp heredoc", "newgrp staff <<EOF\nrm x\nEOF", Forbidden, 0},
		// Controls.
		{"tini --version", "tini --version", Allow, 0},
	})
}

// TestCompilerWrappers: "distcc touch f" and "icecc touch f" ran touch
// (distcc 3.4, icecc 1.4); "sccache touch f" ran "touch -E ..." to learn
// the compiler (sccache 0.4.0). colorgcc runs gcc with its arguments
// (from its documentation): judged as gcc is.
func TestCompilerWrappers(t *testing.T) {
	p := round11Policy("distcc", "sccache", "icecc", "colorgcc")
	checkBypass3(t, p, []bypass3Case{
		{"distcc", "distcc rm x", Forbidden, 0},
		{"distcc unmatched", "distcc whoami", Prompt, 0},
		{"sccache", "sccache rm x", Forbidden, 0},
		{"icecc", "icecc rm x", Forbidden, 0},
		{"colorgcc -wrapper", "colorgcc -wrapper rm,x a.c", Forbidden, 0},
		// Controls.
		{"distcc --version", "distcc --version", Allow, 0},
		{"distcc --help", "distcc --help", Allow, 0},
		{"sccache -s", "sccache -s", Allow, 0},
		{"sccache --version", "sccache --version", Allow, 0},
		{"icecc --help", "icecc --help", Allow, 0},
		{"colorgcc compile", "colorgcc -c a.c", Allow, 0},
	})
}

// TestContainerRunners: ctr run IMAGE ID CMD, ctr task exec --exec-id E
// CONTAINER CMD and ctr container create IMAGE ID CMD (options from "ctr
// run --help", containerd 1.6.20; no daemon runs here); nerdctl (docker's
// grammar), crictl exec CONTAINER CMD, singularity/apptainer exec IMAGE
// CMD and shell IMAGE [SHELL ARGS], toolbox run CMD and enter, distrobox
// enter [NAME] [--|-e] CMD (whose words distrobox-enter 1.4.2.1 joins and
// evals) and snap run SNAP.APP, from the documentation. As docker exec,
// an allow rule for the runner speaks for a command no rule matches.
func TestContainerRunners(t *testing.T) {
	p := round11Policy("ctr", "nerdctl", "crictl", "singularity", "apptainer", "toolbox", "distrobox", "distrobox-enter", "snap")
	checkBypass3(t, p, []bypass3Case{
		{"ctr run", "ctr run --rm -t docker.io/library/alpine:latest c1 rm x", Forbidden, 0},
		{"ctr -n run", "ctr -n k8s.io run --net-host img c1 rm x", Forbidden, 0},
		{"ctr task exec", "ctr task exec --exec-id e1 -t c1 rm x", Forbidden, 0},
		{"ctr t exec", "ctr t exec --exec-id e1 c1 rm x", Forbidden, 0},
		{"ctr c create", "ctr c create img c1 rm x", Forbidden, 0},
		{"ctr run unknown option", "ctr run --runc-binary ./x img c1 ls", Prompt, 0},
		{"nerdctl exec", "nerdctl exec -it c1 rm x", Forbidden, 0},
		{"nerdctl run", "nerdctl run --rm alpine rm x", Forbidden, 0},
		{"nerdctl -n run", "nerdctl -n k8s.io run --rm alpine rm x", Forbidden, 0},
		{"nerdctl container exec", "nerdctl container exec c1 rm x", Forbidden, 0},
		{"nerdctl compose run", "nerdctl compose run web rm x", Forbidden, 0},
		{"crictl exec", "crictl exec -it c1 rm x", Forbidden, 0},
		{"crictl -r exec", "crictl -r unix:///run/c.sock exec -s c1 rm x", Forbidden, 0},
		{"singularity exec", "singularity exec img.sif rm x", Forbidden, 0},
		{"singularity exec opts", "singularity exec --cleanenv -B /data img.sif rm x", Forbidden, 0},
		{"apptainer exec", "apptainer exec --nv docker://alpine rm x", Forbidden, 0},
		{"apptainer shell -c", "apptainer shell img.sif -c 'rm x'", Forbidden, 0},
		{"apptainer shell", "apptainer shell img.sif", Prompt, 0},
		{"toolbox run", "toolbox run rm x", Forbidden, 0},
		{"toolbox run -c", "toolbox run -c fedora rm x", Forbidden, 0},
		{"toolbox enter", "toolbox enter fedora", Prompt, 0},
		{"distrobox enter --", "distrobox enter box -- rm x", Forbidden, 0},
		{"distrobox enter -e", "distrobox enter -n box -e rm x", Forbidden, 0},
		{"distrobox enter joined", "distrobox enter box -- 'ls; rm x'", Forbidden, 0},
		{"distrobox-enter", "distrobox-enter box -- rm x", Forbidden, 0},
		{"distrobox enter shell", "distrobox enter box", Prompt, 0},
		{"snap run", "snap run rm x", Forbidden, 0},
		// Controls: the runners' other subcommands, a command no rule
		// matches, and --help/--version.
		{"ctr images ls", "ctr images ls", Allow, 0},
		{"ctr --version", "ctr --version", Allow, 0},
		{"ctr run unmatched", "ctr run img c1 whoami", Allow, 0},
		{"nerdctl ps", "nerdctl ps -a", Allow, 0},
		{"nerdctl --version", "nerdctl --version", Allow, 0},
		{"crictl ps", "crictl ps", Allow, 0},
		{"singularity pull", "singularity pull docker://alpine", Allow, 0},
		{"apptainer --version", "apptainer --version", Allow, 0},
		{"toolbox list", "toolbox list", Allow, 0},
		{"distrobox list", "distrobox list", Allow, 0},
		{"snap list", "snap list", Allow, 0},
		{"snap --help", "snap --help", Allow, 0},
	})
}

// TestEnvironmentRunners: "rbenv exec touch f" ran touch (rbenv 1.1.2);
// "nix shell" and "nix develop" run -c CMD ARGS, or an interactive shell
// (nix 2.8.0 --help); nix run runs the program of an installable, which
// no word names (unanalysable). From the documentation: guix shell PKGS
// -- CMD, devbox run CMD, mise exec TOOLS -- CMD (and -c CMD), asdf exec,
// pyenv/nodenv/goenv/jenv exec, volta run, fnm exec, nvm exec/run (whose
// first operand is a version or the command), scl enable COLL... CMD
// (each operand a command string) and rvm RUBY do CMD.
func TestEnvironmentRunners(t *testing.T) {
	p := round11Policy("nix", "guix", "devbox", "mise", "asdf", "pyenv", "rbenv", "nodenv", "goenv", "jenv", "volta", "fnm", "nvm", "scl", "rvm")
	checkBypass3(t, p, []bypass3Case{
		{"nix shell -c", "nix shell nixpkgs#hello -c rm x", Forbidden, 0},
		{"nix shell --command", "nix shell nixpkgs#a nixpkgs#b --command rm x", Forbidden, 0},
		{"nix develop -c", "nix develop --impure -c rm x", Forbidden, 0},
		{"nix flags shell", "nix --extra-experimental-features 'nix-command flakes' shell nixpkgs#a -c rm x", Forbidden, 0},
		{"nix shell bare", "nix shell nixpkgs#hello", Prompt, 0},
		{"nix develop bare", "nix develop", Prompt, 0},
		{"nix run", "nix run nixpkgs#bash -- -c 'rm x'", Prompt, Forbidden},
		{"nix run rm", "nix run rm x", Forbidden, 0},
		{"guix shell", "guix shell coreutils -- rm x", Forbidden, 0},
		{"guix shell --pure", "guix shell --pure -m m.scm -- rm x", Forbidden, 0},
		{"guix shell bare", "guix shell coreutils", Prompt, 0},
		{"devbox run", "devbox run rm x", Forbidden, 0},
		{"devbox run --", "devbox run -c dir -- rm x", Forbidden, 0},
		{"mise exec", "mise exec node@20 -- rm x", Forbidden, 0},
		{"mise x", "mise x python@3.12 -- rm x", Forbidden, 0},
		{"mise exec -c", "mise exec node@20 -c 'rm x'", Forbidden, 0},
		{"mise exec bare", "mise exec node@20", Prompt, 0},
		{"asdf exec", "asdf exec rm x", Forbidden, 0},
		{"asdf env", "asdf env node rm x", Forbidden, 0},
		{"pyenv exec", "pyenv exec rm x", Forbidden, 0},
		{"rbenv exec", "rbenv exec rm x", Forbidden, 0},
		{"nodenv exec", "nodenv exec rm x", Forbidden, 0},
		{"goenv exec", "goenv exec rm x", Forbidden, 0},
		{"jenv exec", "jenv exec rm x", Forbidden, 0},
		{"volta run", "volta run --node 20 rm x", Forbidden, 0},
		{"fnm exec", "fnm exec --using=18 rm x", Forbidden, 0},
		{"fnm exec --", "fnm exec --using 18 -- rm x", Forbidden, 0},
		{"nvm exec", "nvm exec 18 rm x", Forbidden, 0},
		{"nvm exec no version", "nvm exec rm x", Forbidden, 0},
		{"nvm exec lts", "nvm exec lts/iron rm x", Forbidden, 0},
		{"scl enable", "scl enable devtoolset-9 'rm x'", Forbidden, 0},
		{"scl enable many", "scl enable a b 'ls; rm x'", Forbidden, 0},
		{"scl enable --", "scl enable a -- rm x", Forbidden, 0},
		{"rvm do", "rvm 3.2 do rm x", Forbidden, 0},
		{"rvm all do", "rvm all do bundle exec rm x", Forbidden, 0},
		// Controls.
		{"nix build", "nix build .#pkg", Allow, 0},
		{"nix --version", "nix --version", Allow, 0},
		{"guix install", "guix install hello", Allow, 0},
		{"devbox add", "devbox add go", Allow, 0},
		{"mise install", "mise install node@20", Allow, 0},
		{"mise exec unmatched", "mise exec node@20 -- whoami", Allow, 0},
		{"asdf install", "asdf install", Allow, 0},
		{"pyenv versions", "pyenv versions", Allow, 0},
		{"rbenv exec unmatched", "rbenv exec whoami", Allow, 0},
		{"volta install", "volta install node", Allow, 0},
		{"fnm use", "fnm use 18", Allow, 0},
		{"nvm install", "nvm install 18", Allow, 0},
		{"scl list", "scl -l", Allow, 0},
		{"rvm list", "rvm list", Allow, 0},
	})
}

// TestHostSpawn: flatpak-spawn [OPTIONS] CMD runs CMD in a new sandbox,
// or with --host on the host, outside any sandbox (flatpak-xdg-utils
// 1.0.5, from the documentation: it needs the portal's D-Bus service).
func TestHostSpawn(t *testing.T) {
	p := round11Policy("flatpak-spawn")
	checkBypass3(t, p, []bypass3Case{
		{"flatpak-spawn", "flatpak-spawn rm x", Forbidden, 0},
		{"flatpak-spawn --host", "flatpak-spawn --host rm x", Forbidden, 0},
		{"flatpak-spawn opts", "flatpak-spawn --host --env=A=1 --directory /tmp rm x", Forbidden, 0},
		{"flatpak-spawn unmatched", "flatpak-spawn --host whoami", Prompt, 0},
		{"flatpak-spawn --help", "flatpak-spawn --help", Allow, 0},
	})
}
