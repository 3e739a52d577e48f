package test

// oracleSeeds are scripts of the classes of the third red-team round, for
// TestCorpusVsBash and as seeds of FuzzAnalyseVsBash: heredoc delimiters
// bash decodes, bodies ended elsewhere, wrapper option grammars and the
// places mvdan.cc/sh parses otherwise than bash.
var oracleSeeds = []string{
	"cat <<$'#\\x41'\n#A\nrm x\n#\\x41\nls",
	"cat <<$'#\\101'\n#A\nrm x\n#\\101",
	"cat <<$'#\\t'\n#\t\nrm x\n#\\t",
	"cat <<$'#\\''\n#'\nrm x\n#\\'",
	"cat <<\"#\\\\\"\n#\\\nrm x\n#\\\\",
	"cat <<\"#\\$\"\n#$\nrm x\n#\\$",
	"cat <<$\"#\\$\"\n#$\nrm x\n#\\$",
	"cat <<-$'#\\x41'\n\t#A\nrm x\n\t#\\x41",
	"cat <<A <<$'#\\x42'\na\nA\n#B\nrm x\n#\\x42",
	"echo \"$(cat <<$'#\\x41'\n#A\nrm x\n#\\x41\n)\"",
	"echo `cat <<$'#\\x41'\n#A\nrm x\n#\\x41\n`",
	"cat <<EOF\n${HOME}EOF\ncat <<'#Y'\nEOF\nrm x\n#Y",
	"cat <<EOF\n$(:)EOF\ncat <<'#Y'\nEOF\nrm x\n#Y",
	"cat <<-\"\tEOF\"\nbody\n\tEOF\nrm x",
	"echo $(cat <<EOF\ninner\nEOFrm x)",
	"echo $(cat <<EOF\ninner\nEOF)\nrm x",
	"cat <<E\"\"OF\nbody $HOME\nEOF",
	"cat <<'E'OF\n$(rm x)\nEOF",
	"cat <<EOF\nx\nEO\\\nF\nrm x",
	"env -- A=1 rm x",
	"env -i -- A=1 curl x",
	"nohup env -- A=1 rm x",
	"env -u A -C / rm x",
	"env -S 'rm x'",
	"bash --norc -c 'rm x'",
	"bash --noprofile --norc -c 'curl x'",
	"bash -oc posix 'rm x'",
	"bash -co posix 'rm x'",
	"bash -O extglob -c 'rm x'",
	"bash --rcfile /dev/null -c 'rm x'",
	"echo `echo \\`echo \\\\\\`rm x\\\\\\`\\``",
	"((ls); rm x)",
	"echo $((ls); curl x)",
	"shopt -s extglob\ncase x in @($(rm x))) ;; esac",
	"[[ x == @($(rm x)) ]]",
	"a=(1)#y; rm x",
}
