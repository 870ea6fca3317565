# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pgn_audit_global_optspecs
    string join \n o/out= j/threads= split fix quirks no-html excel-safe format= quiet fail-on-findings piece= max-window= h/help V/version
end

function __fish_pgn_audit_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_pgn_audit_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_pgn_audit_using_subcommand
    set -l cmd (__fish_pgn_audit_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -s o -l out -d 'Where the reports go; created if missing. The reports of an earlier run in it are replaced' -r -F
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -s j -l threads -d 'Worker threads (default: one per core). More than 4 per core is lowered to 4 per core, or to 8 on a machine with one or two cores, with a note' -r
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l format -d 'The row reports as CSV files (NAME.csv) or as Parquet files (NAME.parquet: the same columns, numbers as 64-bit integers)' -r -f -a "csv\t'NAME.csv'
parquet\t'NAME.parquet'"
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l piece -d 'Audits one piece of one file: its bytes START..END as stored (a multi-frame zstd file is cut at frame starts; see `pgn-audit plan`). `merge` joins the pieces\' folders into one run\'s reports' -r
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l max-window -d 'The largest zstd window or xz dictionary a file may ask for, in MiB (rounded down to a power of two, at most 2048): a file that asks for more is refused with a read error, so memory stays bounded. `zstd --long=31` files need 2048' -r
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l split -d 'Also write clean.pgn and rejected.pgn with each game\'s original bytes'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l fix -d 'Also write fixed.pgn, every game as read, with the result the Laws give where the recorded one contradicts the board (a missed automatic draw, a checkmate or stalemate not scored, a dead position or a loss on time scored as a win), and corrections.csv, one row per corrected game'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l quirks -d 'Also write quirks.csv: one row per accepted move (or tag line, or FEN castling right) whose notation is sloppy'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l no-html -d 'Do not write report.html (the CSV files are the same)'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l excel-safe -d 'Write a \' before each CSV cell that starts with =, +, -, @ or a tab, so that a spreadsheet shows it as text instead of running it as a formula. Off by default: the cells are the values as read. For CSV reports only: a Parquet cell is a typed value, not spreadsheet text'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l quiet -d 'No progress bar, no summary table, no notes; errors still go to standard error'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -l fail-on-findings -d 'Exit 1 (instead of 0) when the run completed and at least one game is flagged or incomplete'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -s V -l version -d 'Print version'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -a "audit" -d 'Audits PGN into a report folder (the default: `pgn-audit INPUT...`)'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -a "merge" -d 'Merges report folders made from disjoint inputs into the reports of one run over them all'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -a "plan" -d 'Prints the pieces a file can be audited in (`--piece`), one `START..END` a line'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -a "sources" -d 'Prints the sources an audit of the same inputs reads, in its order, one JSON object a line: `source` (as the reports name it), `path` (the file that holds it), `format` (plain, zstd, gzip, bzip2, xz, parquet or zip), `size`, `modified` (as summary.json writes it) and `modified_ns`'
complete -c pgn-audit -n "__fish_pgn_audit_needs_command" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -s o -l out -d 'Where the reports go; created if missing. The reports of an earlier run in it are replaced' -r -F
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -s j -l threads -d 'Worker threads (default: one per core). More than 4 per core is lowered to 4 per core, or to 8 on a machine with one or two cores, with a note' -r
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l format -d 'The row reports as CSV files (NAME.csv) or as Parquet files (NAME.parquet: the same columns, numbers as 64-bit integers)' -r -f -a "csv\t'NAME.csv'
parquet\t'NAME.parquet'"
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l piece -d 'Audits one piece of one file: its bytes START..END as stored (a multi-frame zstd file is cut at frame starts; see `pgn-audit plan`). `merge` joins the pieces\' folders into one run\'s reports' -r
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l max-window -d 'The largest zstd window or xz dictionary a file may ask for, in MiB (rounded down to a power of two, at most 2048): a file that asks for more is refused with a read error, so memory stays bounded. `zstd --long=31` files need 2048' -r
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l split -d 'Also write clean.pgn and rejected.pgn with each game\'s original bytes'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l fix -d 'Also write fixed.pgn, every game as read, with the result the Laws give where the recorded one contradicts the board (a missed automatic draw, a checkmate or stalemate not scored, a dead position or a loss on time scored as a win), and corrections.csv, one row per corrected game'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l quirks -d 'Also write quirks.csv: one row per accepted move (or tag line, or FEN castling right) whose notation is sloppy'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l no-html -d 'Do not write report.html (the CSV files are the same)'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l excel-safe -d 'Write a \' before each CSV cell that starts with =, +, -, @ or a tab, so that a spreadsheet shows it as text instead of running it as a formula. Off by default: the cells are the values as read. For CSV reports only: a Parquet cell is a typed value, not spreadsheet text'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l quiet -d 'No progress bar, no summary table, no notes; errors still go to standard error'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -l fail-on-findings -d 'Exit 1 (instead of 0) when the run completed and at least one game is flagged or incomplete'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand merge" -s o -l out -d 'Where the merged reports go; created if missing. The reports of an earlier run in it are replaced' -r -F
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand merge" -l quiet -d 'No summary table; errors still go to standard error'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand merge" -s h -l help -d 'Print help'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand plan" -l piece-size -d 'About how many bytes (as stored) each piece holds. A plain file is cut anywhere (each piece starts reading at the first game after its start); a zstd file of several frames (pzstd\'s, Lichess\'s, or frames joined one after another) at frame starts; any other compressed file is one piece' -r
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand plan" -l max-window -d 'With `--text-estimate`: the largest zstd window the file may ask for, in MiB, as the audit\'s `--max-window` (a file that asks for more is estimated from nothing: 0)' -r
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand plan" -l text-estimate -d 'Print, instead of pieces, about how many bytes of text the file holds: a plain file its size, a zstd file its size times what its first 8 MiB decompress to over 8 MiB, any other file its size. The Dask driver plans its default pieces from it'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand plan" -s h -l help -d 'Print help'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand sources" -s o -l out -d 'The output folder the audit would write: a directory walk skips it, and an input inside it is refused, as in the audit' -r -F
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand sources" -s h -l help -d 'Print help'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand help; and not __fish_seen_subcommand_from audit merge plan sources help" -f -a "audit" -d 'Audits PGN into a report folder (the default: `pgn-audit INPUT...`)'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand help; and not __fish_seen_subcommand_from audit merge plan sources help" -f -a "merge" -d 'Merges report folders made from disjoint inputs into the reports of one run over them all'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand help; and not __fish_seen_subcommand_from audit merge plan sources help" -f -a "plan" -d 'Prints the pieces a file can be audited in (`--piece`), one `START..END` a line'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand help; and not __fish_seen_subcommand_from audit merge plan sources help" -f -a "sources" -d 'Prints the sources an audit of the same inputs reads, in its order, one JSON object a line: `source` (as the reports name it), `path` (the file that holds it), `format` (plain, zstd, gzip, bzip2, xz, parquet or zip), `size`, `modified` (as summary.json writes it) and `modified_ns`'
complete -c pgn-audit -n "__fish_pgn_audit_using_subcommand help; and not __fish_seen_subcommand_from audit merge plan sources help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
