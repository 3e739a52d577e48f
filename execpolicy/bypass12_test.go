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
