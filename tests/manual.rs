//! The manual (issue 26): pgn-audit(1) and its subcommands' pages, made
//! from the CLI definition (clap_mangen) with a description, examples,
//! the exit status, the files and the pages to see also;
//! pgn-audit-reports(5), made from docs/reports.md (pulldown-cmark, roff);
//! and the shell completions. Every one is generated, never edited by
//! hand: the committed files in docs/ are checked against what the
//! definitions give.

use std::path::Path;

use clap::CommandFactory;
use pgn_audit::cli::Cli;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use roff::{Inline, Roff, bold, italic, roman};

use crate::common::*;

/// What pgn-audit does, one paragraph each.
const DESCRIPTION: [&str; 3] = [
    "pgn-audit reads chess games in PGN (plain, compressed with zstd, gzip, bzip2 or xz, or in \
     zip archives), replays every game, in parallel, against the FIDE Laws of Chess, and writes \
     into a report folder what breaks them: castling that was not allowed (Laws 3.8.2), draw \
     claims that were false (9.2, 9.3), games played on past an automatic draw (9.6, 5.2.2), \
     results that the final position contradicts (5.1.1, 5.2, 6.9), and games that cannot be \
     replayed to their end.",
    "Every game read is counted once, as clean, flagged or incomplete. Each row names its game \
     by its source, its number, its first byte and its first line, for an editor to jump to \
     (vim +LINE FILE). The reports are the same at any number of threads, and a run either \
     writes all of them or ends with a status other than 0.",
    "pgn-audit merge joins the report folders of disjoint inputs into the folder one run over \
     them all would have written; pgn-audit plan cuts a large file into pieces that \
     pgn-audit --piece audits one at a time, on as many machines as there are pieces. Every \
     file, column, code and verdict of the reports is explained in pgn-audit-reports(5).",
];

/// The examples: what a person types, and what it does.
const EXAMPLES: [(&str, &str); 6] = [
    (
        "pgn-audit lichess_db_standard_rated_2025-05.pgn.zst",
        "Audits a month of Lichess games, decompressed as it is read, into reports/; \
         reports/report.html is the page to open in a browser.",
    ),
    (
        "pgn-audit --split -o twic-reports twic/",
        "Audits every PGN file and zip archive below the folder twic/, in sorted order, into \
         twic-reports/, and writes the clean games and the others beside the reports, each \
         exactly as read.",
    ),
    (
        "pgn-audit plan lichess_db_standard_rated_2025-05.pgn.zst --piece-size 2000000000",
        "Prints the pieces of the file for a cluster, one START..END a line, each about 2 GB \
         as stored.",
    ),
    (
        "pgn-audit lichess_db_standard_rated_2025-05.pgn.zst --piece 0..1999969370 -o shards/000",
        "Audits the first of those pieces (on one machine of the cluster) into a shard folder.",
    ),
    (
        "pgn-audit merge shards/000 shards/001 shards/002 -o reports",
        "Merges the pieces' folders, in the file's order, into exactly the reports of one run \
         over the whole file.",
    ),
    (
        "pgn-audit --quiet --fail-on-findings games.pgn",
        "In a script: no progress and no table, and exit status 1 when a game is flagged or \
         incomplete.",
    ),
];

/// The exit statuses, and what any other one means.
const EXIT_STATUS: [(&str, &str); 4] = [
    ("0", "The run completed. Findings are not failures."),
    (
        "1",
        "With --fail-on-findings only: the run completed and a game is flagged or incomplete.",
    ),
    (
        "2",
        "A usage or input error, said in one line, pgn-audit: PATH: cause: a missing or \
         unreadable input, a file that is not PGN, a corrupt or cut compressed stream (the games \
         read before the fault are reported), an output folder that cannot be written, that \
         another run is using, or that is standard output (-o -). The other sources are still \
         audited.",
    ),
    (
        "130",
        "Interrupted (Ctrl-C, SIGTERM, SIGHUP): the reports cover the games read before the \
         signal, and summary.json says \"interrupted\": true.",
    ),
];
const OTHER_STATUS: &str = "Any other status is a bug in pgn-audit (pgn-audit: internal error: \
     ...): no summary.json is written, and the reports are not to be used.";

/// Each file a run writes into its output folder, one line each.
const FILES: [(&str, &str); 11] = [
    (
        "castling.csv",
        "one row per castling move that breaks the rules",
    ),
    (
        "claims.csv",
        "one row per draw claim audited, with its verdict",
    ),
    (
        "missed_draws.csv",
        "one row per automatic draw the players played on past",
    ),
    (
        "results.csv",
        "one row per recorded result that the final position or the Laws contradict",
    ),
    (
        "errors.csv",
        "one row per game that could not be audited to its end",
    ),
    (
        "quirks.csv",
        "with --quirks: one row per piece of sloppy notation that was accepted",
    ),
    (
        "summary.json",
        "the run's counts and what it read, written last",
    ),
    (
        "report.html",
        "the page for a person, to open in a browser (not with --no-html)",
    ),
    (
        "clean.pgn",
        "with --split: the clean games, each exactly as read",
    ),
    (
        "rejected.pgn",
        "with --split: the flagged and incomplete games, each exactly as read",
    ),
    (
        ".pgn-audit.lock",
        "the lock a run or merge holds while it writes the folder",
    ),
];

/// The pages to see also, from pgn-audit(1).
const SEE_ALSO: &str = "pgn-audit-audit(1), pgn-audit-merge(1), pgn-audit-plan(1), \
     pgn-audit-sources(1), pgn-audit-reports(5)";

/// Roff text without the preamble that every rendering starts with: the
/// sections of one page are rendered apart and joined under one preamble.
fn body(roff: &Roff) -> String {
    let preamble = Roff::new().render();
    roff.render()
        .strip_prefix(&preamble)
        .expect("roff starts with its preamble")
        .to_owned()
}

/// One of clap_mangen's sections, without the preamble.
fn section(render: impl Fn(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    render(&mut out).unwrap();
    let preamble = Roff::new().render();
    String::from_utf8(out)
        .unwrap()
        .strip_prefix(&preamble)
        .expect("a section starts with the preamble")
        .to_owned()
}

/// A tagged list: a `.TP` per item, its tag in bold.
fn tagged(roff: &mut Roff, items: &[(&str, &str)]) {
    for (tag, text) in items {
        roff.control("TP", []);
        roff.text([bold(*tag)]);
        roff.text([roman(*text)]);
    }
}

/// How an option or input of `cmd` is written in a synopsis: `-o <DIR>`,
/// `--split`, `<INPUT>...` where it repeats.
fn usage_of(arg: &clap::Arg) -> String {
    let value = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map(|name| format!("<{name}>"))
        .unwrap_or_else(|| format!("<{}>", arg.get_id().as_str().to_uppercase()));
    let repeats = arg.get_num_args().is_some_and(|n| n.max_values() > 1)
        || matches!(arg.get_action(), clap::ArgAction::Append);
    if arg.is_positional() {
        return if repeats {
            format!("{value}...")
        } else {
            value
        };
    }
    let name = match (arg.get_short(), arg.get_long()) {
        (Some(short), _) => format!("-{short}"),
        (None, Some(long)) => format!("--{long}"),
        (None, None) => unreachable!("an option has a name"),
    };
    if arg.get_action().takes_values() {
        format!("{name} {value}")
    } else {
        name
    }
}

/// The synopsis of `cmd` as a person types it, `words` first (`pgn-audit
/// merge`): the optional options in brackets, the inputs, the required
/// options, and a required choice of options as `{A | B}` (help and
/// version left out: every command has them).
fn synopsis_line(cmd: &clap::Command, words: &str) -> Vec<Inline> {
    // The required choices only: clap's derive gives every struct of
    // arguments a group of its own, which is no choice.
    let grouped: Vec<Vec<String>> = cmd
        .get_groups()
        .filter(|g| g.is_required_set())
        .map(|g| g.get_args().map(|id| id.as_str().to_owned()).collect())
        .collect();
    let in_group = |arg: &clap::Arg| {
        grouped
            .iter()
            .any(|ids| ids.iter().any(|id| id == arg.get_id().as_str()))
    };
    let shown: Vec<&clap::Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !["help", "version"].contains(&a.get_id().as_str()))
        .collect();
    let mut line = vec![bold(words)];
    let mut say = |text: String| line.push(roman(format!(" {text}")));
    for arg in shown
        .iter()
        .filter(|a| !a.is_positional() && !a.is_required_set() && !in_group(a))
    {
        say(format!("[{}]", usage_of(arg)));
    }
    for arg in shown.iter().filter(|a| a.is_positional()) {
        say(usage_of(arg));
    }
    for arg in shown
        .iter()
        .filter(|a| !a.is_positional() && a.is_required_set())
    {
        say(usage_of(arg));
    }
    for ids in &grouped {
        let choices: Vec<String> = shown
            .iter()
            .filter(|a| ids.iter().any(|id| id == a.get_id().as_str()))
            .map(|a| usage_of(a))
            .collect();
        say(format!("{{{}}}", choices.join(" | ")));
    }
    line
}

/// The SYNOPSIS section of the command `words` names (`pgn-audit`, or
/// `pgn-audit merge`); for pgn-audit itself, a line for each subcommand
/// after its own.
fn synopsis(words: &str) -> String {
    let mut cli = Cli::command();
    cli.build();
    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]);
    match words.strip_prefix("pgn-audit ") {
        Some(sub) => {
            roff.text(synopsis_line(cli.find_subcommand(sub).unwrap(), words));
        }
        None => {
            roff.text(synopsis_line(&cli, words));
            for sub in ["merge", "plan", "sources"] {
                roff.control("br", []);
                let cmd = cli.find_subcommand(sub).unwrap();
                roff.text(synopsis_line(cmd, &format!("{words} {sub}")));
            }
        }
    }
    body(&roff)
}

/// pgn-audit(1): the CLI definition's synopsis, options and subcommands
/// (the help subcommand, which has no page, left out), with the sections
/// a manual has.
fn main_page() -> Vec<u8> {
    let man = clap_mangen::Man::new(Cli::command().disable_help_subcommand(true));
    let mut page = Roff::new().render();
    page += &section(|w| man.render_title(w));
    page += &section(|w| man.render_name_section(w));
    page += &synopsis("pgn-audit");
    let mut description = Roff::new();
    description.control("SH", ["DESCRIPTION"]);
    for (i, paragraph) in DESCRIPTION.iter().enumerate() {
        if i > 0 {
            description.control("PP", []);
        }
        description.text([roman(*paragraph)]);
    }
    page += &body(&description);
    page += &section(|w| man.render_options_section(w));
    page += &section(|w| man.render_subcommands_section(w));
    let mut rest = Roff::new();
    rest.control("SH", ["EXAMPLES"]);
    tagged(&mut rest, &EXAMPLES);
    rest.control("SH", ["EXIT STATUS"]);
    tagged(&mut rest, &EXIT_STATUS);
    rest.control("PP", []).text([roman(OTHER_STATUS)]);
    rest.control("SH", ["FILES"]);
    rest.text([roman(
        "In the output folder (-o DIR, default reports/); docs/reports.md and \
         pgn-audit-reports(5) explain each:",
    )]);
    tagged(&mut rest, &FILES);
    rest.control("SH", ["SEE ALSO"]);
    rest.text([roman(SEE_ALSO)]);
    page += &body(&rest);
    page += &section(|w| man.render_version_section(w));
    page.into_bytes()
}

/// A subcommand's page: what clap_mangen makes of it, and the pages to
/// see also.
fn subcommand_page(sub: &'static str, name: &'static str) -> Vec<u8> {
    let cmd = Cli::command()
        .find_subcommand(sub)
        .unwrap()
        .clone()
        .name(name);
    let extra = cmd.get_after_help().is_some();
    let man = clap_mangen::Man::new(cmd);
    let mut page = Roff::new().render();
    page += &section(|w| man.render_title(w));
    page += &section(|w| man.render_name_section(w));
    page += &synopsis(&format!("pgn-audit {sub}"));
    page += &section(|w| man.render_description_section(w));
    page += &section(|w| man.render_options_section(w));
    if extra {
        page += &section(|w| man.render_extra_section(w));
    }
    let mut also = Roff::new();
    also.control("SH", ["SEE ALSO"]);
    also.text([roman("pgn-audit(1), pgn-audit-reports(5)")]);
    page += &body(&also);
    page.into_bytes()
}

/// The inline text of a Markdown block as roff: code and strong text in
/// bold, emphasis in italics, a line break as a space.
fn inline(event: Event<'_>, style: &mut Vec<fn(String) -> Inline>, out: &mut Vec<Inline>) {
    let styled = |style: &[fn(String) -> Inline], text: String| match style.last() {
        Some(f) => f(text),
        None => roman(text),
    };
    match event {
        Event::Text(t) => out.push(styled(style, t.into_string())),
        Event::Code(t) => out.push(bold(t.into_string())),
        Event::SoftBreak | Event::HardBreak => out.push(roman(" ")),
        Event::Start(Tag::Strong) => style.push(bold),
        Event::Start(Tag::Emphasis) => style.push(italic),
        Event::End(TagEnd::Strong | TagEnd::Emphasis) => {
            style.pop();
        }
        _ => {}
    }
}

/// pgn-audit-reports(5), from docs/reports.md: its title the NAME, the
/// text after it the DESCRIPTION, its `##` headings sections, `###`
/// subsections, its paragraphs, lists and code blocks as
/// written, each row of its two-column tables a tagged paragraph.
fn reports_page(markdown: &str) -> Vec<u8> {
    let mut roff = Roff::new();
    let version = env!("CARGO_PKG_VERSION");
    roff.control(
        "TH",
        [
            "pgn-audit-reports",
            "5",
            "",
            &format!("pgn-audit {version}"),
        ],
    );
    roff.control("SH", ["NAME"]);
    roff.text([roman(
        "pgn-audit-reports - the files, columns, codes and verdicts of pgn-audit's reports",
    )]);
    let options = pulldown_cmark::Options::ENABLE_TABLES;
    let mut text: Vec<Inline> = Vec::new();
    let mut style = Vec::new();
    let mut heading: Option<HeadingLevel> = None;
    let mut cell = 0usize;
    let mut in_head = false;
    let mut lists = 0usize;
    let mut code = false;
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some(level),
            Event::End(TagEnd::Heading(_)) => {
                let title: String = text
                    .drain(..)
                    .map(|i| match i {
                        Inline::Roman(t) | Inline::Bold(t) | Inline::Italic(t) => t,
                        Inline::LineBreak => " ".to_owned(),
                    })
                    .collect();
                match heading.take() {
                    // The page's title is its NAME; what follows it, its
                    // DESCRIPTION.
                    Some(HeadingLevel::H1) => {
                        roff.control("SH", ["DESCRIPTION"]);
                    }
                    Some(HeadingLevel::H2) => {
                        roff.control("SH", [title.to_uppercase().as_str()]);
                    }
                    _ => {
                        roff.control("SS", [title.as_str()]);
                    }
                }
            }
            Event::Start(Tag::Paragraph) => {
                if lists == 0 {
                    roff.control("PP", []);
                }
            }
            Event::End(TagEnd::Paragraph) => {
                roff.text(std::mem::take(&mut text));
            }
            Event::Start(Tag::List(_)) => {
                if lists > 0 {
                    roff.control("RS", []);
                }
                lists += 1;
            }
            Event::End(TagEnd::List(_)) => {
                lists -= 1;
                if lists > 0 {
                    roff.control("RE", []);
                }
            }
            Event::Start(Tag::Item) => {
                roff.control("IP", ["\\(bu", "2"]);
            }
            Event::End(TagEnd::Item) => {
                if !text.is_empty() {
                    roff.text(std::mem::take(&mut text));
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                roff.control("PP", []);
                roff.control("RS", ["4"]);
                roff.control("nf", []);
                code = true;
            }
            Event::End(TagEnd::CodeBlock) => {
                code = false;
                roff.control("fi", []);
                roff.control("RE", []);
            }
            Event::Text(t) if code => {
                for line in t.lines() {
                    roff.text([roman(line)]);
                }
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                text.clear();
            }
            Event::Start(Tag::TableRow) => cell = 0,
            Event::Start(Tag::TableCell) => {}
            Event::End(TagEnd::TableCell) => {
                if !in_head {
                    if cell == 0 {
                        roff.control("TP", []);
                    }
                    roff.text(std::mem::take(&mut text));
                }
                cell += 1;
            }
            other => inline(other, &mut style, &mut text),
        }
    }
    roff.render().into_bytes()
}

/// The generated documentation: each file in docs/ and what it holds.
fn generated() -> Vec<(&'static str, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reports = std::fs::read_to_string(root.join("docs/reports.md")).unwrap();
    let mut files = vec![
        ("docs/pgn-audit.1", main_page()),
        (
            "docs/pgn-audit-audit.1",
            subcommand_page("audit", "pgn-audit-audit"),
        ),
        (
            "docs/pgn-audit-merge.1",
            subcommand_page("merge", "pgn-audit-merge"),
        ),
        (
            "docs/pgn-audit-plan.1",
            subcommand_page("plan", "pgn-audit-plan"),
        ),
        (
            "docs/pgn-audit-sources.1",
            subcommand_page("sources", "pgn-audit-sources"),
        ),
        ("docs/pgn-audit-reports.5", reports_page(&reports)),
    ];
    for (shell, name) in [
        (
            clap_complete::Shell::Bash,
            "docs/completions/pgn-audit.bash",
        ),
        (clap_complete::Shell::Zsh, "docs/completions/pgn-audit.zsh"),
        (
            clap_complete::Shell::Fish,
            "docs/completions/pgn-audit.fish",
        ),
    ] {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "pgn-audit", &mut script);
        files.push((name, script));
    }
    files
}

/// The man pages and completions in docs/ are those the CLI definition
/// and docs/reports.md give; `PGN_AUDIT_BLESS=1` writes them anew.
#[test]
fn man_pages_and_completions_match_their_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var("PGN_AUDIT_BLESS").is_ok_and(|v| v == "1");
    for (name, bytes) in generated() {
        let path = root.join(name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == bytes,
            "{name} is not what its source gives: \
             run PGN_AUDIT_BLESS=1 cargo test --release --test suite manual::"
        );
    }
}

/// The text of a man page as `man` shows it, without its formatting: the
/// roff escapes for `-` and `'` undone.
fn plain(page: &[u8]) -> String {
    String::from_utf8(page.to_vec())
        .unwrap()
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
}

/// pgn-audit(1) is a manual, not a copy of --help: its sections in order,
/// examples of each way to run it, the exit statuses of the contract, one
/// line for each file a run writes, and no page that does not exist.
#[test]
fn the_manual_page_has_a_manual_s_sections() {
    let page = plain(&main_page());
    let sections: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .collect();
    assert_eq!(
        sections,
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "SUBCOMMANDS",
            "EXAMPLES",
            "\"EXIT STATUS\"",
            "FILES",
            "\"SEE ALSO\"",
            "VERSION"
        ]
    );
    assert!(!page.contains("pgn-audit-help"), "{page}");
    assert!(page.contains("fail-on-findings"), "{page}");
    for (command, _) in EXAMPLES {
        assert!(page.contains(command), "{command}");
    }
    for status in ["0", "1", "2", "130"] {
        assert!(
            page.contains(&format!(".TP\n\\fB{status}\\fR\n")),
            "{status}"
        );
    }
    assert!(!page.contains("101"), "{page}");
    // Every page named in SEE ALSO and SUBCOMMANDS is one of docs/.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in SEE_ALSO.split(", ") {
        let (stem, section) = name.trim_end_matches(')').split_once('(').unwrap();
        assert!(
            root.join(format!("docs/{stem}.{section}")).exists(),
            "{name}"
        );
    }
}

/// FILES names each file a run writes, and nothing else: a run with
/// --split and --quirks writes exactly those.
#[test]
fn the_manual_names_every_file_a_run_writes() {
    let t = tempdir();
    let input = write(
        t.path(),
        "games.pgn",
        b"[Event \"e\"]\n[Result \"*\"]\n\n1. e4 e5 *\n",
    );
    let out = t.path().join("out");
    let o = bin()
        .args(["--quiet", "--split", "--quirks", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    written.sort();
    let mut named: Vec<String> = FILES.iter().map(|(f, _)| (*f).to_owned()).collect();
    named.sort();
    assert_eq!(written, named);
}

/// pgn-audit-reports(5) holds docs/reports.md: each of its `##` headings a
/// section, each file and code of its tables a tagged paragraph.
#[test]
fn the_reports_page_is_docs_reports_md() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let markdown = std::fs::read_to_string(root.join("docs/reports.md")).unwrap();
    let page = plain(&reports_page(&markdown));
    assert!(page.contains(".TH pgn-audit-reports 5"), "{page}");
    let headings: Vec<String> = markdown
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|h| {
            let h = h.replace('`', "").to_uppercase();
            if h.contains(' ') {
                format!("\"{h}\"")
            } else {
                h
            }
        })
        .collect();
    let sections: Vec<String> = page
        .lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .map(str::to_owned)
        .collect();
    assert_eq!(sections[..2], ["NAME", "DESCRIPTION"]);
    assert_eq!(sections[2..], headings[..]);
    for code in [
        "castling.csv",
        "king_moved",
        "false_castling_rights",
        "dead_position_not_drawn",
        "summary.json",
    ] {
        assert!(page.contains(&format!(".TP\n\\fB{code}\\fR")), "{code}");
    }
    // Every table row is a tagged paragraph: no table syntax is left.
    assert!(!page.lines().any(|l| l.starts_with('|')), "{page}");
}

/// The README's install lines put the manual where `man` looks for a
/// `cargo install`ed program's pages (~/.cargo/share/man, found from
/// ~/.cargo/bin on PATH).
#[test]
fn the_readme_installs_the_manual() {
    let readme = include_str!("../README.md");
    let install: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("install -Dm644 "))
        .collect();
    assert_eq!(
        install.len(),
        5,
        "man1, man5 and the completions of three shells"
    );
    assert!(readme.contains("\ncargo install --locked --path . "));
    assert!(readme.contains("apt-get install chromium chromium-driver"));
    let home = tempdir();
    for line in install {
        let run = std::process::Command::new("sh")
            .arg("-c")
            .arg(line)
            .env("HOME", home.path())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    for page in [
        "man1/pgn-audit.1",
        "man1/pgn-audit-audit.1",
        "man1/pgn-audit-merge.1",
        "man1/pgn-audit-plan.1",
        "man1/pgn-audit-sources.1",
        "man5/pgn-audit-reports.5",
    ] {
        assert!(
            home.path().join(".cargo/share/man").join(page).exists(),
            "{page}"
        );
    }
    for completion in [
        ".local/share/bash-completion/completions/pgn-audit",
        ".local/share/zsh/site-functions/_pgn-audit",
        ".config/fish/completions/pgn-audit.fish",
    ] {
        assert!(home.path().join(completion).exists(), "{completion}");
    }
}

/// The synopses read as a person types the commands: `pgn-audit merge`,
/// not a command `pgn-audit-merge`, and `...` where an input repeats.
#[test]
fn the_synopses_name_the_commands_as_typed() {
    let main = plain(&main_page());
    for line in [
        "pgn-audit\\fR [-o <DIR>] [-j <N>] [--split] [--fix] [--quirks]",
        "<INPUT>...",
        "pgn-audit merge\\fR [--quiet] <REPORT_DIR>... -o <OUT>",
        "pgn-audit plan\\fR [--max-window <MIB>] <FILE> {--piece-size <BYTES> | --text-estimate}",
        "pgn-audit sources\\fR [-o <DIR>] <INPUT>...",
    ] {
        assert!(main.contains(line), "{line}\n{main}");
    }
    let merge = plain(&subcommand_page("merge", "pgn-audit-merge"));
    assert!(
        merge
            .contains(".SH SYNOPSIS\n\\fBpgn-audit merge\\fR [--quiet] <REPORT_DIR>... -o <OUT>\n"),
        "{merge}"
    );
    for (sub, name) in [
        ("audit", "pgn-audit-audit"),
        ("merge", "pgn-audit-merge"),
        ("plan", "pgn-audit-plan"),
        ("sources", "pgn-audit-sources"),
    ] {
        let page = plain(&subcommand_page(sub, name));
        let synopsis = page.split(".SH SYNOPSIS\n").nth(1).unwrap();
        let synopsis = synopsis.split(".SH").next().unwrap();
        assert!(!synopsis.contains(name), "{synopsis}");
        assert!(
            synopsis.starts_with(&format!("\\fBpgn-audit {sub}\\fR")),
            "{synopsis}"
        );
    }
}

/// The long options of `pgn-audit audit`, as clap defines them.
fn audit_options() -> Vec<String> {
    let mut cli = Cli::command();
    cli.build();
    cli.find_subcommand("audit")
        .unwrap()
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|long| !["help", "version"].contains(long))
        .map(|long| format!("--{long}"))
        .collect()
}

/// `pgn-audit sources`' formats, in the words of `--help` and the README.
const SOURCE_FORMATS: [&str; 7] = ["plain", "zstd", "gzip", "bzip2", "xz", "parquet", "zip"];

/// Where the README, `--help` and the man pages say the same thing, they
/// say it alike: the README's options table has a row for every option of
/// `pgn-audit audit` and none other; every report file the manual names
/// is named by `--help` and by the README; `sources`' formats are the same
/// list in its `--help` and the README; and every `refused: …` message the
/// README quotes is one the binary prints.
#[test]
fn the_readme_help_and_manual_agree() {
    let readme = include_str!("../README.md");
    // The options table, under ## Usage.
    let usage = readme.split("\n## Usage\n").nth(1).unwrap();
    let usage = usage.split("\n#").next().unwrap();
    let mut rows: Vec<String> = usage
        .lines()
        .filter_map(|l| l.strip_prefix("| `").filter(|cell| cell.starts_with('-')))
        .map(|cell| {
            let cell = cell.split('`').next().unwrap();
            let long = cell.split(", ").last().unwrap();
            long.split(' ').next().unwrap().to_owned()
        })
        .collect();
    rows.sort();
    let mut options = audit_options();
    options.sort();
    assert_eq!(rows, options, "the README's options table");
    // The report files.
    let help = String::from_utf8(bin().args(["audit", "--help"]).output().unwrap().stdout).unwrap();
    let help_words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for (file, _) in FILES.iter().filter(|(f, _)| !f.starts_with('.')) {
        assert!(help_words.contains(file), "--help names {file}: {help}");
        assert!(
            readme.contains(&format!("`{file}`")),
            "the README names {file}"
        );
        assert!(
            plain(&main_page()).contains(file),
            "the manual names {file}"
        );
    }
    // sources' formats.
    let listed: Vec<String> = SOURCE_FORMATS.iter().map(|f| format!("`{f}`")).collect();
    let readme_list = format!(
        "{} or {}",
        listed[..listed.len() - 1].join(", "),
        listed[listed.len() - 1]
    );
    let readme_words = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(readme_words.contains(&readme_list), "{readme_list}");
    let help_list = format!(
        "{} or {}",
        SOURCE_FORMATS[..SOURCE_FORMATS.len() - 1].join(", "),
        SOURCE_FORMATS[SOURCE_FORMATS.len() - 1]
    );
    let sources_help =
        String::from_utf8(bin().args(["sources", "--help"]).output().unwrap().stdout).unwrap();
    let sources_help = sources_help
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(sources_help.contains(&help_list), "{sources_help}");
    let page = plain(&subcommand_page("sources", "pgn-audit-sources"));
    assert!(
        page.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&help_list)
    );
    // The refusals the README quotes, each printed by the binary for one
    // of these files.
    let t = tempdir();
    let refused: [(&str, &[u8]); 5] = [
        ("x.pgn", b"7z\xbc\xaf\x27\x1c\0\x04 and more"),
        ("y.pgn", b"<!DOCTYPE html>\n<html></html>\n"),
        ("z.pgn", b"Rar!\x1a\x07\0 and more"),
        ("u.pgn", b"\xff\xfe[\0E\0v\0e\0n\0t\0"),
        ("b.pgn", b"\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11"),
    ];
    for (name, bytes) in refused {
        write(t.path(), name, bytes);
    }
    let o = bin()
        .current_dir(t.path())
        .args(["--quiet", "-o", "r", "."])
        .output()
        .unwrap();
    let said = String::from_utf8(o.stderr).unwrap();
    // The code spans: every other piece between backticks.
    let quotes: Vec<String> = readme_words
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|q| q.contains("refused: "))
        .map(|q| q[q.find("refused: ").unwrap()..].to_owned())
        .collect();
    assert!(!quotes.is_empty());
    for quote in quotes {
        assert!(
            said.contains(&quote),
            "the README quotes {quote:?}; the binary says\n{said}"
        );
    }
}
