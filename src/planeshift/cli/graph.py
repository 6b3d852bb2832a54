"""`planeshift graph`: the scan's inventory as a plane map (Mermaid, DOT or GraphML).

networkx and the graph reporter are imported inside the command, so ``planeshift scan`` (and
``--help``) never load them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import (
    EXIT_OK,
    EXIT_USAGE,
    ProjectFlags,
    check_output,
    echo_errors,
    errors_exit_2,
    fail,
    output_option,
    project_options,
    resolve_root,
    write_output,
)
from .scan import run_scan

if TYPE_CHECKING:
    pass

FORMATS = ("mermaid", "dot", "graphml")  # reports.graph.FORMATS, without importing networkx
EXIT_SKIPPED = 1

GRAPH_HELP = f"""Write the inventory of PATH (default: .) as a graph, coloured by plane.

Nodes: a dispatcher per mechanism the tree touches, its points (hook points, signals, events),
every registration (coloured by its plane: interceptor, subscriber, observing_subscriber,
commit_participant, delivery_sink, needs_review), the handlers the scan resolved (coloured by
their registrations' plane, or `mixed`) and the functions that emit. Edges: registration ->
point -> dispatcher, registration -> handler, emitter -> point; a site without a point links to
the dispatcher itself.

\b
Formats (--format):
  mermaid   a `flowchart LR` with a classDef per plane, for a markdown report (default)
  dot       Graphviz: `dot -Tsvg map.dot -o map.svg`
  graphml   GraphML (UTF-8) with every attribute, for yEd, Gephi or networkx

The scan is the one `planeshift scan` runs, with the same options and caches.

\b
Exit codes:
  {EXIT_OK}  the graph was written and every file was analysed
  {EXIT_SKIPPED}  the graph was written but some files were skipped (listed on stderr)
  {EXIT_USAGE}  usage, configuration or rule-pack error, or an internal error
"""


@click.command("graph", help=GRAPH_HELP,
               short_help="Draw the inventory as a plane map (Mermaid, DOT, GraphML).")
@click.argument("path", default=".", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="mermaid", show_default=True,
              help="Graph format.")
@output_option
@click.option("--mechanism", "mechanisms", multiple=True, metavar="ID",
              help="Only this mechanism and what hangs off it; repeatable.")
@project_options
@click.pass_context
def graph_command(ctx: click.Context, path: Path, fmt: str, output: Path | None,
                  mechanisms: tuple[str, ...], project: ProjectFlags) -> None:
    with errors_exit_2(ctx, "graph"):
        config = project.config(resolve_root(path))
        check_output(output)
        result = run_scan(config)
    for warning in result.stats.get("warnings", ()):
        click.echo(f"planeshift: warning: {warning}", err=True)
    known = [m.id for m in result.mechanisms]
    unknown = [m for m in mechanisms if m not in known]
    if unknown:
        fail(ctx, "graph", f"no mechanism {', '.join(map(repr, unknown))} "
                           f"(have: {', '.join(known)})")
    from ..reports.graph import (  # networkx: this command only
        build_graph,
        counts,
        render,
    )

    graph = build_graph(result, mechanisms)
    text = render(graph, fmt)
    if output is None:
        binary = getattr(sys.stdout, "buffer", None)
        if fmt == "graphml" and binary is not None:  # the XML declares UTF-8, whatever the
            sys.stdout.flush()                       # terminal's encoding
            binary.write(text.encode("utf-8"))
            binary.flush()
        else:
            click.echo(text, nl=False)
    else:
        try:
            write_output(output, text)
        except OSError as exc:
            fail(ctx, "graph", f"cannot write {output}: {exc.strerror or exc}")
        nodes, edges = counts(graph)
        click.echo(f"wrote {fmt} graph to {output}: {graph.number_of_nodes()} nodes "
                   f"({_listed(nodes)}), {graph.number_of_edges()} edges ({_listed(edges)})",
                   err=True)
    if result.errors:
        echo_errors(result.errors)
        count = len(result.errors)
        click.echo(f"{count} {'file' if count == 1 else 'files'} skipped", err=True)
        ctx.exit(EXIT_SKIPPED)


def _listed(per_kind: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in per_kind.items())
