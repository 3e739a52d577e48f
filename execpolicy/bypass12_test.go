package execpolicy

import "testing"

// round11Policy is bypassPolicy with allow rules for progs.
func round11Policy(progs ...string) *Policy {
	p := bypassPolicy()
	for _, prog := range progs {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass12"})
	}
	return p
}

// TestCToolchain holds the C toolchain's options that run a program or
// load a plugin: "gcc -wrapper ./x,arg a.c" (every subprocess through x),
// "gcc -fplugin=./p.so", "gcc -B ./d" and --prefix (d/as), "gcc
// -specs=s" (*linker: x), "gcc -Wl,-plugin,./p.so", "-Xlinker -plugin",
// "gcc -Wp,-fplugin=./p.so", -Xpreprocessor, "gcc @rsp" (-wrapper in it),
// "cpp -wrapper", "g++ -wrapper", cc1 -fplugin and collect2 -plugin (gcc
// 12.2); "clang -fuse-ld=/abs/x", "clang --ld-path=./x", "clang
// -fplugin=", "-fpass-plugin=", "-Xclang -load -Xclang ./p.so", "clang
// -B d -fno-integrated-as", "clang --config ./c.cfg", clang-14 and
// clang-cpp-14 (clang 14.0.6); "ld --plugin ./p.so", "ld -plugin=",
// "ld @rsp", "nm --plugin", "ar --plugin ./p.so rc l.a a.o" and "ranlib
// --plugin" (binutils 2.40) ran x or the plugin's constructor while
// judged allow by an allow rule for the program.
func TestCToolchain(t *testing.T) {
	p := round11Policy("gcc", "cc", "g++", "c++", "cpp", "clang", "clang++", "clang-14", "clang-cpp-14", "gcc-12",
		"x86_64-linux-gnu-gcc-12", "aarch64-linux-gnu-g++", "cc1", "c99", "ld", "ld.gold", "collect2", "ar", "nm", "ranlib", "gcc-ar-12")
	checkBypass3(t, p, []bypass3Case{
		{"-wrapper", "gcc -wrapper rm,x a.c", Forbidden, 0},
		{"-wrapper prog", "gcc -wrapper ./x,arg a.c", Prompt, 0},
		{"-fplugin", "gcc -fplugin=./p.so a.c", Prompt, 0},
		{"-fplugin-arg", "gcc -fplugin=p -fplugin-arg-p-k=v a.c", Prompt, 0},
		{"-B", "gcc -B ./d a.c", Prompt, 0},
		{"-B attached", "gcc -Bd a.c", Prompt, 0},
		{"--prefix", "gcc --prefix=d/ a.c", Prompt, 0},
		{"--prefix next", "gcc --prefix d/ a.c", Prompt, 0},
		{"-specs", "cc -specs=s a.c", Prompt, 0},
		{"--specs next", "gcc --specs s a.c", Prompt, 0},
		{"-Wl,-plugin", "gcc -Wl,-plugin,./p.so a.c", Prompt, 0},
		{"-Wl,--plugin=", "gcc -Wl,--plugin=./p.so a.c", Prompt, 0},
		{"-Wl,-plugin-opt", "gcc -Wl,-plugin-opt=./x a.c", Prompt, 0},
		{"-Wl,@", "gcc -Wl,@rsp a.c", Prompt, 0},
		{"-Xlinker", "gcc -Xlinker -plugin -Xlinker ./p.so a.c", Prompt, 0},
		{"-Wp,-fplugin", "gcc -Wp,-fplugin=./p.so a.c", Prompt, 0},
		{"-Xpreprocessor", "gcc -Xpreprocessor -fplugin=./p.so a.c", Prompt, 0},
		{"@file", "gcc @rsp a.c", Prompt, 0},
		{"cpp", "cpp -wrapper rm,x a.c", Forbidden, 0},
		{"g++", "g++ -wrapper ./x a.cc", Prompt, 0},
		{"c++", "c++ -fplugin=./p.so a.cc", Prompt, 0},
		{"c99", "c99 -B d a.c", Prompt, 0},
		{"cc1", "cc1 -fplugin=./p.so a.c", Prompt, 0},
		{"collect2", "collect2 -plugin ./p.so a.o", Prompt, 0},
		{"gcc-12", "gcc-12 -wrapper rm,x a.c", Forbidden, 0},
		{"triple", "x86_64-linux-gnu-gcc-12 -fplugin=./p.so a.c", Prompt, 0},
		{"triple g++", "aarch64-linux-gnu-g++ -B d a.c", Prompt, 0},
		{"by path", "/usr/bin/gcc -wrapper rm,x a.c", Forbidden, 0},
		{"clang -fuse-ld path", "clang -fuse-ld=/tmp/x a.c", Prompt, 0},
		{"clang -fuse-ld rm", "clang -fuse-ld=rm a.c", Forbidden, 0},
		{"clang --ld-path", "clang --ld-path=./x a.c", Prompt, 0},
		{"clang --ld-path rm", "clang --ld-path=rm a.c", Forbidden, 0},
		{"clang -fpass-plugin", "clang -fpass-plugin=./p.so a.c", Prompt, 0},
		{"clang -Xclang -load", "clang -Xclang -load -Xclang ./p.so a.c", Prompt, 0},
		{"clang -Xarch", "clang -Xarch_x86_64 -fplugin=./p.so a.c", Prompt, 0},
		{"clang -mllvm", "clang -mllvm -load=./p.so a.c", Prompt, 0},
		{"clang --config", "clang --config ./c.cfg a.c", Prompt, 0},
		{"clang --config=", "clang --config=./c.cfg a.c", Prompt, 0},
		{"clang++", "clang++ -fplugin=./p.so a.cc", Prompt, 0},
		{"clang-14", "clang-14 -fplugin=./p.so a.c", Prompt, 0},
		{"clang-cpp-14", "clang-cpp-14 -fplugin=./p.so a.c", Prompt, 0},
		{"ld --plugin", "ld --plugin ./p.so a.o", Prompt, 0},
		{"ld -plugin=", "ld -plugin=./p.so a.o", Prompt, 0},
		{"ld @", "ld @rsp", Prompt, 0},
		{"ld.gold", "ld.gold --plugin ./p.so a.o", Prompt, 0},
		{"nm --plugin", "nm --plugin ./p.so a.o", Prompt, 0},
		{"ar --plugin", "ar --plugin ./p.so rc l.a a.o", Prompt, 0},
		{"ranlib --plugin", "ranlib --plugin=./p.so l.a", Prompt, 0},
		{"gcc-ar-12 --plugin", "gcc-ar-12 --plugin ./p.so rc l.a a.o", Prompt, 0},
		// Controls: ordinary compiles and links.
		{"-O2 -o", "gcc -O2 -o a a.c", Allow, 0},
		{"flags", "gcc -Wall -Wextra -std=c11 -Iinc -DX=1 -g -c a.c -o a.o", Allow, 0},
		{"link", "cc -o a a.o -Llib -lm -Wl,--as-needed,-rpath,/opt/lib -Xlinker --gc-sections", Allow, 0},
		{"-fuse-ld=lld", "clang++ -O2 -fuse-ld=lld -std=c++20 a.cc", Allow, 0},
		{"-Wa", "gcc -Wa,--noexecstack -c a.c", Allow, 0},
		{"-x c", "gcc -x c -E a.c", Allow, 0},
		{"gcc-12", "gcc-12 -O2 a.c", Allow, 0},
		{"ld", "ld -o a a.o -Bstatic -lc", Allow, 0},
		{"ar", "ar rcs l.a a.o", Allow, 0},
		{"nm", "nm -D l.so", Allow, 0},
	})
}

// TestRustc holds rustc's linker and its flags, its unstable options and
// its option files: "rustc -C linker=./x a.rs" (-Clinker=, --codegen
// linker=, --codegen=linker=), "rustc -C link-arg=-wrapper -C
// link-arg=./x", "rustc @rsp" and, with RUSTC_BOOTSTRAP=1, "rustc -Z
// codegen-backend=./p.so" ran x or p.so's constructor (rustc 1.95.0)
// while judged allow.
func TestRustc(t *testing.T) {
	p := round11Policy("rustc")
	checkBypass3(t, p, []bypass3Case{
		{"-C linker", "rustc -C linker=./x a.rs", Prompt, 0},
		{"-C linker rm", "rustc -C linker=rm a.rs", Forbidden, 0},
		{"-Clinker", "rustc -Clinker=./x a.rs", Prompt, 0},
		{"--codegen", "rustc --codegen linker=./x a.rs", Prompt, 0},
		{"--codegen=", "rustc --codegen=linker=./x a.rs", Prompt, 0},
		{"link-arg", "rustc -C link-arg=-wrapper -C link-arg=./x a.rs", Prompt, 0},
		{"link-args", "rustc -C link-args='-wrapper rm,x' a.rs", Forbidden, 0},
		{"link-arg -B", "rustc -C link-arg=-B./d a.rs", Prompt, 0},
		{"linker-plugin-lto", "rustc -C linker-plugin-lto=./p.so a.rs", Prompt, 0},
		{"linker-flavor", "rustc -C linker-flavor=ld a.rs", Prompt, 0},
		{"-Z", "rustc -Z codegen-backend=./p.so a.rs", Prompt, 0},
		{"-Z attached", "rustc -Zcodegen-backend=./p.so a.rs", Prompt, 0},
		{"@file", "rustc @rsp a.rs", Prompt, 0},
		// Controls.
		{"plain", "rustc a.rs", Allow, 0},
		{"-O", "rustc -O --edition 2021 -o a a.rs", Allow, 0},
		{"opt-level", "rustc -C opt-level=3 -Cdebuginfo=2 -C target-cpu=native a.rs", Allow, 0},
		{"link-arg safe", "rustc -C link-arg=-Wl,--gc-sections -C link-arg=-fuse-ld=lld a.rs", Allow, 0},
	})
}

// TestApt holds apt's -o and -c, which set the commands apt and dpkg run,
// and dpkg's own: "apt-get -o APT::Update::Pre-Invoke::=./x update", its
// -qo, -oKEY and --option=KEY spellings, "apt -o
// APT::Update::Post-Invoke::=./x update", "apt-get -c ./conf update" and
// --config-file= (apt 2.6.1), and "dpkg --pre-invoke=./x --configure -a",
// "--post-invoke ./x" and --status-logger= (dpkg 1.21.22) ran x while
// judged allow.
func TestApt(t *testing.T) {
	p := round11Policy("apt-get", "apt", "dpkg")
	checkBypass3(t, p, []bypass3Case{
		{"-o Pre-Invoke", "apt-get -o APT::Update::Pre-Invoke::=./x update", Prompt, 0},
		{"-o Pre-Invoke rm", "apt-get -o 'APT::Update::Pre-Invoke::=rm x' update", Forbidden, 0},
		{"-qo cluster", "apt-get -qo 'APT::Update::Pre-Invoke::=rm x' update", Forbidden, 0},
		{"-o attached", "apt-get '-oAPT::Update::Pre-Invoke::=rm x' update", Forbidden, 0},
		{"--option=", "apt-get '--option=APT::Update::Pre-Invoke::=rm x' update", Forbidden, 0},
		{"--option next", "apt-get --option 'DPkg::Post-Invoke::=rm x' install foo", Forbidden, 0},
		{"after the command", "apt-get update -o 'APT::Update::Post-Invoke::=rm x'", Forbidden, 0},
		{"apt", "apt -o 'APT::Update::Post-Invoke::=rm x' update", Forbidden, 0},
		{"Dpkg::Options --pre-invoke", "apt-get -o 'Dpkg::Options::=--pre-invoke=rm x' install foo", Forbidden, 0},
		{"Dir::Bin::dpkg", "apt-get -o Dir::Bin::dpkg=./x install foo", Prompt, 0},
		{"ProxyAutoDetect", "apt-get -o Acquire::http::ProxyAutoDetect=./x update", Prompt, 0},
		{"-c", "apt-get -c ./conf update", Prompt, 0},
		{"--config-file=", "apt-get --config-file=./conf update", Prompt, 0},
		{"dpkg --pre-invoke", "dpkg --pre-invoke='rm x' --configure -a", Forbidden, 0},
		{"dpkg --post-invoke next", "dpkg --post-invoke ./x --configure -a", Prompt, 0},
		{"dpkg --status-logger", "dpkg --status-logger=./x -i p.deb", Prompt, 0},
		// Controls.
		{"install", "apt-get install foo", Allow, 0},
		{"-y -q", "apt-get -yq --no-install-recommends install foo", Allow, 0},
		{"-t", "apt-get -t bookworm-backports install foo", Allow, 0},
		{"force-confold", "apt-get -o Dpkg::Options::=--force-confold -y install foo", Allow, 0},
		{"Install-Recommends", "apt -o APT::Install-Recommends=false install foo", Allow, 0},
		{"APT::Get", "apt-get -o APT::Get::Assume-Yes=true install foo", Allow, 0},
		{"dpkg -i", "dpkg -i p.deb", Allow, 0},
		{"dpkg --status", "dpkg --status bash", Allow, 0},
	})
}

// TestRpm holds rpm's macro expansion: "rpm --eval '%(./x)'", -E,
// "--define 'f %(./x)' -E %f", "--macros=m -E %bar" and "--load m" (m
// defining %bar as %(./x)), "--pipe ./x" and "-E '%{lua:
// os.execute(\"./x\")}'" ran x (rpm 4.18.0) while judged allow.
func TestRpm(t *testing.T) {
	p := round11Policy("rpm", "rpmbuild")
	checkBypass3(t, p, []bypass3Case{
		{"--eval", "rpm --eval '%(touch x)'", Prompt, 0},
		{"-E", "rpm -E '%(touch x)'", Prompt, 0},
		{"--define", "rpm --define 'f %(touch x)' -E %f", Prompt, 0},
		{"-D", "rpm -D 'f 1' -q foo", Prompt, 0},
		{"--macros", "rpm --macros=m -E %bar", Prompt, 0},
		{"--load", "rpm --load m -qa", Prompt, 0},
		{"--pipe", "rpm --pipe 'rm x' -qa", Forbidden, 0},
		{"lua", "rpm -E '%{lua: os.execute(\"touch x\")}'", Prompt, 0},
		{"rpmbuild", "rpmbuild -D 'f 1' -ba x.spec", Prompt, 0},
		// Controls.
		{"-qa", "rpm -qa", Allow, 0},
		{"-qi", "rpm -qi bash", Allow, 0},
		{"-Uvh", "rpm -Uvh p.rpm", Allow, 0},
		{"--queryformat", "rpm -qa --queryformat '%{NAME}\\n'", Allow, 0},
	})
}

// TestGhostscript holds Ghostscript's ways to a pipe: "gs -dNOSAFER
// f.ps" and -dDELAYSAFER (f.ps opening "(%pipe%./x) (w) file"),
// --permit-file-write='%pipe%*', "gs @rsp" (-dNOSAFER in rsp),
// "-sOutputFile=%pipe%./x", "-sOutputFile=|./x", "-o '|./x'" and
// "-o%pipe%./x" ran x, as did "ps2pdf f.ps '|./x'" (Ghostscript 10.00.0),
// while judged allow.
func TestGhostscript(t *testing.T) {
	p := round11Policy("gs", "ps2pdf")
	checkBypass3(t, p, []bypass3Case{
		{"-dNOSAFER", "gs -dNOSAFER f.ps", Prompt, 0},
		{"-dNOSAFER=true", "gs -dBATCH -dNOSAFER=true f.ps", Prompt, 0},
		{"-DNOSAFER", "gs -DNOSAFER f.ps", Prompt, 0},
		{"-dDELAYSAFER", "gs -dDELAYSAFER f.ps", Prompt, 0},
		{"--permit-file-write", "gs '--permit-file-write=%pipe%*' f.ps", Prompt, 0},
		{"@file", "gs @rsp f.ps", Prompt, 0},
		{"-sOutputFile %pipe%", "gs -sDEVICE=png16m '-sOutputFile=%pipe%rm x' f.ps", Forbidden, 0},
		{"-sOutputFile |", "gs '-sOutputFile=|rm x' f.ps", Forbidden, 0},
		{"-o |", "gs -o '|rm x' f.ps", Forbidden, 0},
		{"-o attached", "gs '-o%pipe%./x' f.ps", Prompt, 0},
		{"ps2pdf output", "ps2pdf f.ps '|rm x'", Forbidden, 0},
		// Controls.
		{"png", "gs -q -dBATCH -dNOPAUSE -sDEVICE=png16m -r150 -sOutputFile=out-%d.png f.pdf", Allow, 0},
		{"-o", "gs -o out.pdf -sDEVICE=pdfwrite f.ps", Allow, 0},
		{"ps2pdf", "ps2pdf f.ps f.pdf", Allow, 0},
	})
}

// TestImageMagick holds ImageMagick's pipe file names ("|CMD",
// "png:|CMD"), which it opens through a shell where it is built with
// pipes. Debian 12's ImageMagick 6.9.11 is built without them:
// "convert '|touch x' o.png" ran nothing there, so these cases are
// only strict.
func TestImageMagick(t *testing.T) {
	p := round11Policy("convert", "magick", "mogrify")
	checkBypass3(t, p, []bypass3Case{
		{"read pipe", "convert '|rm x' o.png", Forbidden, 0},
		{"write pipe", "convert a.png 'png:|rm x'", Forbidden, 0},
		{"magick", "magick a.png '|./x'", Prompt, 0},
		// Controls.
		{"convert", "convert a.png b.jpg", Allow, 0},
		{"resize", "convert a.png -resize 50% -quality 90 b.jpg", Allow, 0},
		{"mogrify", "mogrify -format png '*.jpg'", Allow, 0},
	})
}

// TestWget holds wget's askpass program: "wget --use-askpass=./x URL",
// "wget -e use_askpass=./x URL", "--execute=use_askpass=./x" and
// "--config=rc" (rc setting use_askpass) ran x, with a server on
// 127.0.0.1 (GNU Wget 1.21.3), while judged allow.
func TestWget(t *testing.T) {
	p := round11Policy("wget")
	checkBypass3(t, p, []bypass3Case{
		{"--use-askpass", "wget --use-askpass=./x http://127.0.0.1/", Prompt, 0},
		{"--use-askpass rm", "wget '--use-askpass=rm x' http://127.0.0.1/", Forbidden, 0},
		{"--use-askpass bare", "wget --use-askpass http://127.0.0.1/", Prompt, 0},
		{"-e", "wget -e 'use_askpass=rm x' http://127.0.0.1/", Forbidden, 0},
		{"-e spaced", "wget -e 'use_askpass = ./x' http://127.0.0.1/", Prompt, 0},
		{"-e dashes", "wget -e 'use-askpass=./x' http://127.0.0.1/", Prompt, 0},
		{"-qe cluster", "wget -qe useaskpass=./x http://127.0.0.1/", Prompt, 0},
		{"--execute=", "wget '--execute=use_askpass=rm x' http://127.0.0.1/", Forbidden, 0},
		{"--config", "wget --config=rc http://127.0.0.1/", Prompt, 0},
		// Controls.
		{"plain", "wget http://127.0.0.1/f", Allow, 0},
		{"-e robots", "wget -e robots=off -r -np -nv -O f http://127.0.0.1/", Allow, 0},
		{"-O", "wget -qO- http://127.0.0.1/e", Allow, 0},
	})
}

// TestRemoteShellPrograms holds rsync's --rsync-path, the command run on
// the remote host, this host for localhost ("rsync -e ./fakessh
// --rsync-path='./x; rsync' d/ h:d/" ran x, rsync 3.5.0, fakessh running
// the command here as ssh localhost would), and cpio's --rsh-command
// ("cpio -o --rsh-command=./x -F localhost:f" and --rsh= ran x, cpio
// 2.13), judged allow.
func TestRemoteShellPrograms(t *testing.T) {
	p := round11Policy("cpio")
	checkBypass3(t, p, []bypass3Case{
		{"rsync --rsync-path", "rsync --rsync-path=./x a b:", Prompt, 0},
		{"rsync --rsync-path rm", "rsync --rsync-path='rm x' a localhost:", Forbidden, 0},
		{"rsync --rsync-p", "rsync --rsync-p ./x a b:", Prompt, 0},
		{"cpio --rsh-command", "cpio -o --rsh-command=./x -F localhost:f", Prompt, 0},
		{"cpio --rsh", "cpio -o --rsh='rm x' -F localhost:f", Forbidden, 0},
		// Controls.
		{"rsync -a", "rsync -a a b", Allow, 0},
		{"rsync -avz --delete", "rsync -avz --delete --exclude .git a/ b/", Allow, 0},
		{"cpio -o", "cpio -o -H newc -F a.cpio", Allow, 0},
	})
}

// TestCmake holds cmake's tools and scripts that run commands: "cmake -E
// env ./x", "-E time ./x", "-E chdir . ./x", "cmake -P s.cmake", "cmake
// -C s.cmake -S d -B b" and "-DCMAKE_PROJECT_INCLUDE=s.cmake" (s.cmake
// running execute_process(COMMAND ./x)) and "-DCMAKE_MAKE_PROGRAM=./x"
// then "cmake --build" ran x (cmake 3.25.1) while judged allow.
func TestCmake(t *testing.T) {
	p := round11Policy("cmake")
	checkBypass3(t, p, []bypass3Case{
		{"-E env", "cmake -E env rm x", Forbidden, 0},
		{"-E env NAME=", "cmake -E env FOO=1 --unset=BAR rm x", Forbidden, 0},
		{"-E time", "cmake -E time rm x", Forbidden, 0},
		{"-E chdir", "cmake -E chdir . rm x", Forbidden, 0},
		{"-E env prog", "cmake -E env ./x", Prompt, 0},
		{"-E unknown", "cmake -E __run_co_compile --launcher=./x", Prompt, 0},
		{"-P", "cmake -P s.cmake", Prompt, 0},
		{"-D -P", "cmake -DX=1 -P s.cmake", Prompt, 0},
		{"-C", "cmake -C s.cmake -S . -B b", Prompt, 0},
		{"-C attached", "cmake -Cs.cmake -S . -B b", Prompt, 0},
		{"--toolchain", "cmake --toolchain t.cmake -S . -B b", Prompt, 0},
		{"PROJECT_INCLUDE", "cmake -S . -B b -DCMAKE_PROJECT_INCLUDE=s.cmake", Prompt, 0},
		{"MAKE_PROGRAM", "cmake -S . -B b -D CMAKE_MAKE_PROGRAM:FILEPATH=./x", Prompt, 0},
		{"C_COMPILER_LAUNCHER", "cmake -S . -B b '-DCMAKE_C_COMPILER_LAUNCHER=rm x'", Forbidden, 0},
		{"C_FLAGS", "cmake -S . -B b '-DCMAKE_C_FLAGS=-wrapper ./x'", Prompt, 0},
		{"--build --", "cmake --build b -- --eval=x", Prompt, 0},
		// Controls.
		{"configure", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -G Ninja", Allow, 0},
		{"build", "cmake --build build -j4 --target all", Allow, 0},
		{"install", "cmake --install build --prefix /tmp/p", Allow, 0},
		{"-E copy", "cmake -E copy a b", Allow, 0},
		{"-E make_directory", "cmake -E make_directory d", Allow, 0},
	})
}

// TestNano holds nano's speller, which it runs on ^T/F12, and the rcfile
// that may set it: "nano --speller=./x f", "nano -s ./x f" and "nano
// --rcfile=rc f" (set speller) ran x on F12 (nano 7.2, under tmux) while
// judged allow.
func TestNano(t *testing.T) {
	p := round11Policy("nano")
	checkBypass3(t, p, []bypass3Case{
		{"--speller", "nano --speller=./x f", Prompt, 0},
		{"--speller rm", "nano --speller='rm x' f", Forbidden, 0},
		{"-s", "nano -s ./x f", Prompt, 0},
		{"--rcfile", "nano --rcfile=rc f", Prompt, 0},
		{"-f", "nano -f rc f", Prompt, 0},
		// Controls.
		{"plain", "nano f", Allow, 0},
		{"+line", "nano -l +10 f", Allow, 0},
	})
}

// TestSvn holds svn's helper programs: "svn propedit --editor-cmd ./x
// svn:ignore .", "svn diff --diff-cmd ./x", "svn --config-option
// config:tunnels:foo=./x ls svn+foo://h/r" and
// config:helpers:editor-cmd=./x ran x (svn 1.14.2) while judged allow.
func TestSvn(t *testing.T) {
	p := round11Policy("svn")
	checkBypass3(t, p, []bypass3Case{
		{"--editor-cmd", "svn --editor-cmd ./x commit", Prompt, 0},
		{"--editor-cmd rm", "svn propedit --editor-cmd 'rm x' svn:ignore .", Forbidden, 0},
		{"--diff-cmd", "svn diff --diff-cmd=./x", Prompt, 0},
		{"--diff3-cmd", "svn merge --diff3-cmd ./x ^/trunk", Prompt, 0},
		{"--config-option", "svn --config-option config:tunnels:foo=./x ls svn+foo://h/r", Prompt, 0},
		{"--config-dir", "svn --config-dir d diff", Prompt, 0},
		// Controls.
		{"status", "svn status", Allow, 0},
		{"diff", "svn diff -x -u", Allow, 0},
		{"commit -m", "svn commit -m 'fix' f", Allow, 0},
	})
}

// TestHg holds hg's --config, which sets hooks, aliases and extensions:
// "hg --config hooks.pre-status=./x status", "--config=", "hg --config
// 'alias.x=!./x' x" and "hg --config extensions.e=e.py status" ran x
// (Mercurial 6.3.2) while judged allow.
func TestHg(t *testing.T) {
	p := round11Policy("hg", "chg")
	checkBypass3(t, p, []bypass3Case{
		{"hook", "hg --config hooks.pre-status=./x status", Prompt, 0},
		{"hook rm", "hg --config 'hooks.pre-status=rm x' status", Forbidden, 0},
		{"--config=", "hg '--config=hooks.pre-status=rm x' status", Forbidden, 0},
		{"alias", "hg --config 'alias.x=!rm x' x", Forbidden, 0},
		{"extension", "hg --config extensions.e=e.py status", Prompt, 0},
		{"after the command", "hg status --config hooks.pre-status=./x", Prompt, 0},
		{"--conf", "hg --conf hooks.pre-status=./x status", Prompt, 0},
		{"chg", "chg --config hooks.pre-status=./x status", Prompt, 0},
		// Controls.
		{"status", "hg status", Allow, 0},
		{"log", "hg log -l 5 --color never", Allow, 0},
	})
}

// TestPytest holds pytest's options that import a module of the
// caller's choosing: "pytest -p evilplug" and -pevilplug, "pytest --pdb
// --pdbcls=evilplug:X", "pytest -o 'addopts=-p evilplug'",
// --override-ini= and "pytest -W 'ignore::evilplug.X'" (the warning
// category's module) ran evilplug's code (pytest 7.2.1, evilplug.py on
// PYTHONPATH) while judged allow.
func TestPytest(t *testing.T) {
	p := round11Policy("pytest", "pytest-3")
	checkBypass3(t, p, []bypass3Case{
		{"-p", "pytest -p evil", Prompt, 0},
		{"-p attached", "pytest -pevil tests/", Prompt, 0},
		{"-xp cluster", "pytest -xp evil tests/", Prompt, 0},
		{"--pdbcls", "pytest --pdb --pdbcls=evil:X", Prompt, 0},
		{"-o", "pytest -o 'addopts=-p evil'", Prompt, 0},
		{"--override-ini", "pytest --override-ini='addopts=-p evil'", Prompt, 0},
		{"-c", "pytest -c evil.ini", Prompt, 0},
		{"-W module", "pytest -W 'ignore::evil.X'", Prompt, 0},
		{"pytest-3", "pytest-3 -p evil", Prompt, 0},
		// Controls.
		{"-x", "pytest -x tests/", Allow, 0},
		{"-p no:", "pytest -p no:cacheprovider -q tests/", Allow, 0},
		{"-k -m", "pytest -k 'not slow' -m unit -vv tests/test_a.py::test_b", Allow, 0},
		{"-W builtin", "pytest -W error::DeprecationWarning", Allow, 0},
	})
}

// TestOpenssl holds openssl's engines and providers: "openssl req
// -engine ./p.so ...", "openssl rand -engine ./p.so 4", "openssl rand
// -provider /abs/p.so 4", "openssl list -provider-path . -provider p",
// "openssl engine dynamic -pre SO_PATH:./p.so -pre LOAD" and "openssl
// req -config c.cnf" (c.cnf activating a provider module) ran p.so's
// constructor (OpenSSL 3.0.19) while judged allow.
func TestOpenssl(t *testing.T) {
	p := round11Policy("openssl")
	checkBypass3(t, p, []bypass3Case{
		{"-engine", "openssl req -engine ./e.so -new -x509 -keyout k -out c", Prompt, 0},
		{"--engine", "openssl rand --engine ./e.so 4", Prompt, 0},
		{"-provider", "openssl rand -provider /tmp/p.so 4", Prompt, 0},
		{"-provider-path", "openssl list -provider-path . -provider p", Prompt, 0},
		{"-config", "openssl req -config c.cnf -new -key k -out r", Prompt, 0},
		{"engine", "openssl engine dynamic -pre SO_PATH:./p.so -pre LOAD", Prompt, 0},
		// Controls.
		{"x509", "openssl x509 -in c.pem -noout -text", Allow, 0},
		{"rand", "openssl rand -hex 16", Allow, 0},
		{"dgst", "openssl dgst -sha256 f", Allow, 0},
		{"engine alone", "openssl engine", Allow, 0},
	})
}

// TestGpg holds gpg's helper programs: "gpg --agent-program ./x
// --quick-gen-key ..." and "gpg --dirmngr-program ./x --recv-keys ..." ran
// x, and "--options f" (f setting agent-program) tried to (GnuPG 2.2.40),
// while judged allow; --photo-viewer runs its command on a key with a
// photo (gpg(1)).
func TestGpg(t *testing.T) {
	p := round11Policy("gpg", "gpg2")
	checkBypass3(t, p, []bypass3Case{
		{"--photo-viewer", "gpg --photo-viewer ./x --list-keys", Prompt, 0},
		{"--photo-viewer rm", "gpg --photo-viewer 'rm x' --list-options show-photos --list-keys", Forbidden, 0},
		{"--agent-program", "gpg --agent-program=./x --list-secret-keys", Prompt, 0},
		{"--dirmngr-program", "gpg2 --dirmngr-program ./x --recv-keys 0x1", Prompt, 0},
		{"--exec-path", "gpg --exec-path d --list-keys", Prompt, 0},
		{"--options", "gpg --options f --list-keys", Prompt, 0},
		// Controls.
		{"--list-keys", "gpg --list-keys", Allow, 0},
		{"verify", "gpg --verify f.sig f", Allow, 0},
		{"-o", "gpg --batch -o f.gpg -r a@b -e f", Allow, 0},
	})
}
