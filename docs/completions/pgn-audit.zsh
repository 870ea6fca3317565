#compdef pgn-audit

autoload -U is-at-least

_pgn-audit() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'-o+[Where the reports go; created if missing. The reports of an earlier run in it are replaced]:DIR:_files' \
'--out=[Where the reports go; created if missing. The reports of an earlier run in it are replaced]:DIR:_files' \
'-j+[Worker threads (default\: one per core). More than 4 per core is lowered to 4 per core, or to 8 on a machine with one or two cores, with a note]:N:_default' \
'--threads=[Worker threads (default\: one per core). More than 4 per core is lowered to 4 per core, or to 8 on a machine with one or two cores, with a note]:N:_default' \
'--format=[The row reports as CSV files (NAME.csv) or as Parquet files (NAME.parquet\: the same columns, numbers as 64-bit integers)]:FORMAT:((csv\:"NAME.csv"
parquet\:"NAME.parquet"))' \
'--piece=[Audits one piece of one file\: its bytes START..END as stored (a multi-frame zstd file is cut at frame starts; see \`pgn-audit plan\`). \`merge\` joins the pieces'\'' folders into one run'\''s reports]:START..END:_default' \
'--max-window=[The largest zstd window or xz dictionary a file may ask for, in MiB (rounded down to a power of two, at most 2048)\: a file that asks for more is refused with a read error, so memory stays bounded. \`zstd --long=31\` files need 2048]:MIB:_default' \
'--split[Also write clean.pgn and rejected.pgn with each game'\''s original bytes]' \
'--fix[Also write fixed.pgn, every game as read, with the result the Laws give where the recorded one contradicts the board (a missed automatic draw, a checkmate or stalemate not scored, a dead position or a loss on time scored as a win), and corrections.csv, one row per corrected game]' \
'--quirks[Also write quirks.csv\: one row per accepted move (or tag line, or FEN castling right) whose notation is sloppy]' \
'--no-html[Do not write report.html (the CSV files are the same)]' \
'--excel-safe[Write a '\'' before each CSV cell that starts with =, +, -, @ or a tab, so that a spreadsheet shows it as text instead of running it as a formula. Off by default\: the cells are the values as read. For CSV reports only\: a Parquet cell is a typed value, not spreadsheet text]' \
'--quiet[No progress bar, no summary table, no notes; errors still go to standard error]' \
'--fail-on-findings[Exit 1 (instead of 0) when the run completed and at least one game is flagged or incomplete]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':inputs -- PGN files (plain, .zst, .gz, .bz2 or .xz, told by their magic bytes), Parquet tables of games (a movetext column, tags in the others), zip archives (every PGN member), directories (every PGN file and zip archive below, in sorted order; never the output folder), or - for standard input (once). A file named `merge` or `audit`\: write `./merge`:_files' \
":: :_pgn-audit_commands" \
"*::: :->pgn-audit" \
&& ret=0
    case $state in
    (pgn-audit)
        words=($line[2] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pgn-audit-command-$line[2]:"
        case $line[2] in
            (audit)
_arguments "${_arguments_options[@]}" : \
'-o+[Where the reports go; created if missing. The reports of an earlier run in it are replaced]:DIR:_files' \
'--out=[Where the reports go; created if missing. The reports of an earlier run in it are replaced]:DIR:_files' \
'-j+[Worker threads (default\: one per core). More than 4 per core is lowered to 4 per core, or to 8 on a machine with one or two cores, with a note]:N:_default' \
'--threads=[Worker threads (default\: one per core). More than 4 per core is lowered to 4 per core, or to 8 on a machine with one or two cores, with a note]:N:_default' \
'--format=[The row reports as CSV files (NAME.csv) or as Parquet files (NAME.parquet\: the same columns, numbers as 64-bit integers)]:FORMAT:((csv\:"NAME.csv"
parquet\:"NAME.parquet"))' \
'--piece=[Audits one piece of one file\: its bytes START..END as stored (a multi-frame zstd file is cut at frame starts; see \`pgn-audit plan\`). \`merge\` joins the pieces'\'' folders into one run'\''s reports]:START..END:_default' \
'--max-window=[The largest zstd window or xz dictionary a file may ask for, in MiB (rounded down to a power of two, at most 2048)\: a file that asks for more is refused with a read error, so memory stays bounded. \`zstd --long=31\` files need 2048]:MIB:_default' \
'--split[Also write clean.pgn and rejected.pgn with each game'\''s original bytes]' \
'--fix[Also write fixed.pgn, every game as read, with the result the Laws give where the recorded one contradicts the board (a missed automatic draw, a checkmate or stalemate not scored, a dead position or a loss on time scored as a win), and corrections.csv, one row per corrected game]' \
'--quirks[Also write quirks.csv\: one row per accepted move (or tag line, or FEN castling right) whose notation is sloppy]' \
'--no-html[Do not write report.html (the CSV files are the same)]' \
'--excel-safe[Write a '\'' before each CSV cell that starts with =, +, -, @ or a tab, so that a spreadsheet shows it as text instead of running it as a formula. Off by default\: the cells are the values as read. For CSV reports only\: a Parquet cell is a typed value, not spreadsheet text]' \
'--quiet[No progress bar, no summary table, no notes; errors still go to standard error]' \
'--fail-on-findings[Exit 1 (instead of 0) when the run completed and at least one game is flagged or incomplete]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::inputs -- PGN files (plain, .zst, .gz, .bz2 or .xz, told by their magic bytes), Parquet tables of games (a movetext column, tags in the others), zip archives (every PGN member), directories (every PGN file and zip archive below, in sorted order; never the output folder), or - for standard input (once). A file named `merge` or `audit`\: write `./merge`:_files' \
&& ret=0
;;
(merge)
_arguments "${_arguments_options[@]}" : \
'-o+[Where the merged reports go; created if missing. The reports of an earlier run in it are replaced]:OUT:_files' \
'--out=[Where the merged reports go; created if missing. The reports of an earlier run in it are replaced]:OUT:_files' \
'--quiet[No summary table; errors still go to standard error]' \
'-h[Print help]' \
'--help[Print help]' \
'*::dirs -- Report folders, in the order of their inputs, written by this version of pgn-audit with the same options:_files' \
&& ret=0
;;
(plan)
_arguments "${_arguments_options[@]}" : \
'--piece-size=[About how many bytes (as stored) each piece holds. A plain file is cut anywhere (each piece starts reading at the first game after its start); a zstd file of several frames (pzstd'\''s, Lichess'\''s, or frames joined one after another) at frame starts; any other compressed file is one piece]:BYTES:_default' \
'--max-window=[With \`--text-estimate\`\: the largest zstd window the file may ask for, in MiB, as the audit'\''s \`--max-window\` (a file that asks for more is estimated from nothing\: 0)]:MIB:_default' \
'--text-estimate[Print, instead of pieces, about how many bytes of text the file holds\: a plain file its size, a zstd file its size times what its first 8 MiB decompress to over 8 MiB, any other file its size. The Dask driver plans its default pieces from it]' \
'-h[Print help]' \
'--help[Print help]' \
':file -- A PGN file, plain or compressed:_files' \
&& ret=0
;;
(sources)
_arguments "${_arguments_options[@]}" : \
'-o+[The output folder the audit would write\: a directory walk skips it, and an input inside it is refused, as in the audit]:DIR:_files' \
'--out=[The output folder the audit would write\: a directory walk skips it, and an input inside it is refused, as in the audit]:DIR:_files' \
'-h[Print help]' \
'--help[Print help]' \
'*::inputs -- The inputs, as an audit takes them\: PGN files (plain or compressed), Parquet tables of games, zip archives, directories, or - for standard input. A file the audit refuses is said as it says it (exit 2), and gets no line:_files' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_pgn-audit__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pgn-audit-help-command-$line[1]:"
        case $line[1] in
            (audit)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(merge)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(plan)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(sources)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_pgn-audit_commands] )) ||
_pgn-audit_commands() {
    local commands; commands=(
'audit:Audits PGN into a report folder (the default\: \`pgn-audit INPUT...\`)' \
'merge:Merges report folders made from disjoint inputs into the reports of one run over them all' \
'plan:Prints the pieces a file can be audited in (\`--piece\`), one \`START..END\` a line' \
'sources:Prints the sources an audit of the same inputs reads, in its order, one JSON object a line\: \`source\` (as the reports name it), \`path\` (the file that holds it), \`format\` (plain, zstd, gzip, bzip2, xz, parquet or zip), \`size\`, \`modified\` (as summary.json writes it) and \`modified_ns\`' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'pgn-audit commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__audit_commands] )) ||
_pgn-audit__subcmd__audit_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit audit commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__help_commands] )) ||
_pgn-audit__subcmd__help_commands() {
    local commands; commands=(
'audit:Audits PGN into a report folder (the default\: \`pgn-audit INPUT...\`)' \
'merge:Merges report folders made from disjoint inputs into the reports of one run over them all' \
'plan:Prints the pieces a file can be audited in (\`--piece\`), one \`START..END\` a line' \
'sources:Prints the sources an audit of the same inputs reads, in its order, one JSON object a line\: \`source\` (as the reports name it), \`path\` (the file that holds it), \`format\` (plain, zstd, gzip, bzip2, xz, parquet or zip), \`size\`, \`modified\` (as summary.json writes it) and \`modified_ns\`' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'pgn-audit help commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__help__subcmd__audit_commands] )) ||
_pgn-audit__subcmd__help__subcmd__audit_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit help audit commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__help__subcmd__help_commands] )) ||
_pgn-audit__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit help help commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__help__subcmd__merge_commands] )) ||
_pgn-audit__subcmd__help__subcmd__merge_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit help merge commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__help__subcmd__plan_commands] )) ||
_pgn-audit__subcmd__help__subcmd__plan_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit help plan commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__help__subcmd__sources_commands] )) ||
_pgn-audit__subcmd__help__subcmd__sources_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit help sources commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__merge_commands] )) ||
_pgn-audit__subcmd__merge_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit merge commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__plan_commands] )) ||
_pgn-audit__subcmd__plan_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit plan commands' commands "$@"
}
(( $+functions[_pgn-audit__subcmd__sources_commands] )) ||
_pgn-audit__subcmd__sources_commands() {
    local commands; commands=()
    _describe -t commands 'pgn-audit sources commands' commands "$@"
}

if [ "$funcstack[1]" = "_pgn-audit" ]; then
    _pgn-audit "$@"
else
    compdef _pgn-audit pgn-audit
fi
