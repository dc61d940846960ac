"""Known mutants must be killed: the tests that guard a feature fail when the feature breaks.

Usage::

    python scripts/check_mutants.py          # every mutant (about two minutes)
    python scripts/check_mutants.py --list

Each mutant is one small edit of the code that removes a feature (our taps
copy what they are handed, the Stop is armed only around the user's code,
autosave comes before a run, ...) and the tests that should notice. The
script applies the edit, runs those tests in a subprocess, restores the file
(always, also on Ctrl+C) and reports. It exits non-zero if a mutant survives
(the tests passed with the feature broken) or if an edit no longer applies
(the code moved: update the list). ``.ci/run`` runs it after the test suite.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    #: More (path, old, new) edits of the same mutant (a feature guarded in two places).
    also: tuple[tuple[str, str, str], ...] = ()


MUTANTS = (
    Mutant("leaf taps keep references, not copies", "gradexplorer/core/capture/recording.py",
           "tap = _LeafTap(node, grads) if is_accumulator(node) else _GradTap(node, grads)",
           "tap = _GradTap(node, grads)", ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch",)),
    Mutant(".grad after a pass read by reference", "gradexplorer/core/capture/recording.py",
           "record.leaf_grads[node][1] = _copy_grad(var)", "record.leaf_grads[node][1] = var.grad",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch",)),
    Mutant("threads the user starts are not followed", "gradexplorer/core/capture/recording.py",
           "        threading.Thread.start = _following_thread_start\n", "",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch",)),
    Mutant("the recorder does not step aside for torch.compile", "gradexplorer/core/capture/recording.py",
           "if self.closed or _is_compiling():", "if self.closed:",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[torch_compile_eager_backend]",)),
    Mutant("in-place hook edits are not compared by value", "gradexplorer/core/capture/recording.py",
           "in_place = not _same_values(before, current)", "in_place = False",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[tensor_hook_inplace]",)),
    Mutant("our taps are never removed", "gradexplorer/core/capture/recording.py",
           "            for handle in handles:\n                handle.remove()\n", "            pass\n",
           ("tests/core/test_capture.py::test_our_hooks_are_removed_and_never_change_gradients",)),
    Mutant("the device picker forgets the choice", "gradexplorer/ui/main_window.py",
           "        self.settings.last_device = self.device\n", "        pass\n",
           ("tests/ui/test_main_window.py::test_last_device_is_remembered",)),
    Mutant("autosave after the run instead of before", "gradexplorer/ui/main_window.py",
           "        self.autosave_now()\n        filename = self.program_filename",
           "        filename = self.program_filename",
           ("tests/ui/test_sessions.py::test_autosave_before_a_run_and_the_capture_after_it",)),
    Mutant("Stop armed for the whole capture, build included", "gradexplorer/ui/worker.py",
           "exec_guard=self._armed_for_stop, freeze_result=True, leftovers=leftovers)",
           "exec_guard=_armed_late(self), freeze_result=True, leftovers=leftovers)",
           ("tests/ui/test_main_window.py::test_stop_during_the_graph_build_keeps_the_capture",)),
    Mutant("overlapping captures restore GC thresholds out of order", "gradexplorer/core/collector.py",
           "        if _threshold_users == 0:\n            _saved_thresholds = gc.get_threshold()",
           "        if True:\n            _saved_thresholds = gc.get_threshold()",
           ("tests/core/test_collector.py",)),
    Mutant("conjugate tensors kept unresolved (records and JSON)", "gradexplorer/core/io/capture_json.py",
           "torch.view_as_real(data.resolve_conj())", "torch.view_as_real(data)",
           ("tests/fidelity/test_torture.py::test_cli_tells_the_same_story[conjugate_view_as_real]",),
           also=(("gradexplorer/core/records/tensors.py", "        t = t.resolve_conj().resolve_neg()\n        alias = True\n",
                  "        pass\n"),)),
    Mutant("session values read without the table", "gradexplorer/core/io/session.py",
           "        return read_session_text(text, lists=lists, records_out=records_out, partial=partial)",
           "        return read_session_text(text, records_out=records_out, partial=partial)",
           ("tests/core/test_session.py::test_session_file_is_a_container_with_a_value_table",)),
    Mutant("the capture graph caches views that refer back to it", "gradexplorer/core/graph/build.py",
           "    edges = property(lambda self: nx.reportviews.OutEdgeView(self), doc=\"The edges (a fresh view).\")\n"
           "    out_edges = edges\n", "    pass\n",
           ("tests/core/test_collector.py::test_a_dropped_capture_is_freed_without_a_collection",)),
    Mutant("a finished program's namespace is kept", "gradexplorer/core/capture/run.py",
           "        _release_namespace(namespace)\n", "",
           ("tests/core/test_collector.py::test_the_programs_objects_are_freed_without_a_collection",)),
    Mutant("Find searches on the GUI thread", "gradexplorer/ui/main_window.py",
           'matches = self._view_job("find", lambda: search_nodes(graph, text))',
           "matches = search_nodes(graph, text)",
           ("tests/ui/test_responsive_panes.py::test_find_filter_and_redisplay_run_off_the_gui_thread",)),
    Mutant("the inspector's value table measures every cell", "gradexplorer/ui/inspector.py",
           "setSectionResizeMode(QHeaderView.ResizeMode.Fixed)", "setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)",
           ("tests/ui/test_responsive_panes.py::test_inspecting_a_big_value_asks_only_for_the_cells_on_screen",)),
    Mutant("a capture still in use is taken apart", "gradexplorer/core/teardown.py",
           "            if not self._unshared():", "            if False:",
           ("tests/core/test_teardown.py",)),
    Mutant("a capture that leaves the screen is dropped at once", "gradexplorer/ui/main_window.py",
           "            self.retirer.retire(holder)", "            holder.clear()",
           ("tests/ui/test_responsive_panes.py::test_a_capture_that_leaves_the_screen_is_freed_in_steps_by_the_retirer",)),
    Mutant("a finished job keeps its function", "gradexplorer/ui/jobs.py",
           "        fn, self._fn = self._fn, None", "        fn = self._fn",
           ("tests/ui/test_responsive_panes.py::test_a_finished_job_keeps_nothing_its_function_referred_to",)),
    Mutant("the build's GC pause starts after the run's thresholds are given back", "gradexplorer/core/capture/run.py",
           "            build_pause.enter_context(paused_collection())\n        snapshots.end_run()",
           "        build_pause.enter_context(paused_collection())\n        snapshots.end_run()",
           ("tests/core/test_collector.py::test_a_run_that_keeps_many_objects_sees_no_old_generation_collection",)),
    Mutant("the idle collector filters every event while a job runs", "gradexplorer/ui/main_window.py",
           "        self.idle_collector.set_busy(running or self.jobs.busy)\n", "",
           ("tests/ui/test_responsive_panes.py::test_input_is_watched_only_while_no_run_or_job_is_busy",)),
    Mutant("the JSON document lets integers beyond 64 bits in", "gradexplorer/core/io/session.py",
           "json.loads(text, parse_int=_json_int)", "json.loads(text)",
           ("tests/core/test_session.py::test_integers_beyond_64_bits_are_refused_by_both_readers",)),
    Mutant("format 1 writes -inf as inf", "gradexplorer/core/io/capture_json.py",
           'return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")',
           'return "nan" if math.isnan(value) else "inf"',
           ("tests/core/test_session_values.py",)),
    Mutant("an export named without an extension stays without one", "gradexplorer/ui/main_window.py",
           "        if not path.suffix:\n            path = path.with_name(path.name + EXPORT_SUFFIXES[kind])\n", "",
           ("tests/ui/test_sessions.py::test_an_export_named_without_an_extension_gets_the_kinds",)),
    Mutant("an expanded box's content matched by name prefix", "gradexplorer/ui/main_window.py",
           '            return module == path or module.startswith(path + ".")',
           "            return module.startswith(path)",
           ("tests/ui/test_module_boxes.py",)),
    Mutant("the overview opens pattern boxes too", "gradexplorer/core/analysis/grouping.py",
           "if size[biggest] * 2 <= total or biggest in tree.patterns:", "if size[biggest] * 2 <= total:",
           ("tests/core/test_overview.py",)),
    Mutant("long edges get no waypoints", "gradexplorer/core/analysis/layout.py",
           "        if budget < span - 1:\n", "        if True:\n",
           ("tests/core/test_layout_quality.py",)),
    Mutant("the current node is any selected one", "gradexplorer/ui/graph_view.py",
           "        return self.current\n", "        return min(self.selected_nodes(), default=None)\n",
           ("tests/ui/test_overview.py::test_ctrl_k_after_a_find_folds_the_current_match_not_another",)),
    Mutant("a filter only dims, never hides", "gradexplorer/ui/graph_view.py",
           'item.setVisible(inside or self.filter_mode != "hide")', "item.setVisible(True)",
           ("tests/ui/test_overview.py::test_filter_hides_the_rest_then_clear_restores_it",)),
    Mutant("the export draws only the viewport", "gradexplorer/ui/graph_view.py",
           "            scene.render(painter, QRectF(0, 0, rect.width() * scale, rect.height() * scale), rect)",
           "            self.render(painter)",
           ("tests/ui/test_overview.py::test_exported_svg_holds_every_node_and_the_legend",)),
    Mutant("gradient flow reads a node's input gradient", "gradexplorer/core/analysis/gradient_flow.py",
           "    return flow.outputs[0] if flow is not None and flow.outputs else None",
           "    return flow.inputs[0] if flow is not None and flow.inputs else None",
           ("tests/core/test_gradient_flow.py",)),
    Mutant("a default dtype the program set stays for the next run", "gradexplorer/core/capture/process_state.py",
           "        torch.set_default_dtype(before.default_dtype)\n", "        pass\n",
           ("tests/core/test_fresh_state.py",)),
    Mutant("Stop is off while threads of the program still run", "gradexplorer/ui/main_window.py",
           "        self.stop_action.setEnabled(running or bool(process_state.program_threads()))",
           "        self.stop_action.setEnabled(running)",
           ("tests/ui/test_main_window.py::test_the_console_names_what_the_program_changed_and_stop_ends_its_threads",)),
    Mutant("a crashed child's report has no line", "gradexplorer/core/isolated/engine.py",
           "        line = _fault_line(fault, filename)\n", "        line = None\n",
           ("tests/core/test_isolated.py::test_a_segfault_is_an_error_with_its_line_and_the_output_so_far",)),
    Mutant("a crashed isolated run replaces the capture on screen", "gradexplorer/ui/main_window.py",
           'if cap.error is not None and (cap.error.kind == "crashed" or cap.error.exc_type == KILLED):',
           "if False:",
           ("tests/ui/test_main_window.py::test_the_isolated_engine_survives_a_segfault_and_keeps_the_previous_capture",)),
    Mutant("--help imports torch", "gradexplorer/cli.py",
           "from .resources import example_paths\n", "import torch  # noqa: F401\nfrom .resources import example_paths\n",
           ("tests/core/test_cli.py::test_help_names_the_app_commands_and_imports_neither_torch_nor_qt",)),
    Mutant("Qt's options are taken for command-line options", "gradexplorer/launch.py",
           "argv[0] in CLI_OPTIONS", 'argv[0].startswith("-")',
           ("tests/core/test_cli.py::test_qt_options_go_to_the_app_not_to_the_command_line",)),
    Mutant("records on one address share statistics whatever their shape", "gradexplorer/core/records/tensors.py",
           "view = (source.device, source.data_ptr(), tuple(source.shape), source.stride(), source.dtype)",
           "view = (source.device, source.data_ptr())",
           ("tests/core/test_session_stats.py",)),
    Mutant("a standard deviation left with float32 rounding", "gradexplorer/core/records/tensors.py",
           "if variance <= 0.05 * mean * mean:", "if variance <= 1e-6 * mean * mean:",
           ("tests/core/test_session_stats.py",)),
    Mutant("an older file's root kind is kept as a fourth kind", "gradexplorer/core/io/session.py",
           '    if kind == "root":  # older files', '    if False:  # older files',
           ("tests/core/test_session.py::test_a_root_node_is_an_op_with_is_root_and_older_files_saying_root_read_the_same",)),
    Mutant("a negative record number reads the last record", "gradexplorer/core/io/session.py",
           "if records is None or not 0 <= d < len(records):", "if records is None or d >= len(records):",
           ("tests/core/test_session_sweep.py::test_record_numbers_of_format_3_refuse_or_round_trip",)),
    Mutant("any dtype's values go to the value table", "gradexplorer/core/io/capture_json.py",
           "storable = record.data is not None and record.dtype in VALUE_DTYPES", "storable = record.data is not None",
           ("tests/core/test_session_dtypes.py",)),
    Mutant("the value table writes an expanded scalar's strides as they are", "gradexplorer/core/io/session.py",
           "if flat.numel() and flat.stride(0) != 1:", "if False:",
           ("tests/core/test_session_dtypes.py::test_the_value_table_written_in_pieces_is_what_safetensors_reads",)),
    Mutant("an unexpected save failure escapes into the event loop", "gradexplorer/ui/main_window.py",
           "        except Exception as exc:  # noqa: BLE001 - any failure is a message; the work stays in the window",
           "        except (OSError, ValueError) as exc:",
           ("tests/ui/test_sessions.py::test_an_unexpected_failure_while_saving_is_a_message_and_the_work_stays",)),
    Mutant("late statistics may be given twice to one record", "gradexplorer/core/io/session.py",
           " or record.known_norm is None or item[0] in seen:", " or record.known_norm is None:",
           ("tests/core/test_isolated_late_stats.py::test_records_wait_for_late_statistics_and_get_them_from_valid_lines_only",)),
    Mutant("a norm is accepted beside values", "gradexplorer/core/io/session.py",
           " or data is not None or stats is not None:", ":",
           ("tests/core/test_isolated_late_stats.py::test_a_norm_is_only_accepted_on_a_record_without_values_or_statistics",)),
    Mutant("the inspector waits for statistics on their way", "gradexplorer/ui/inspector.py",
           "    if record.stats_pending:  # never wait", "    if False:  # never wait",
           ("tests/ui/test_late_stats_inspector.py",)),
    Mutant("the child computes its late statistics while the app draws", "gradexplorer/core/isolated/engine.py",
           "            while not stats_after.wait(_POLL) and process.poll() is None", "            while False and process.poll() is None",
           ("tests/core/test_isolated_late_stats.py::test_the_child_computes_its_statistics_once_the_caller_says_so",)),
    Mutant("the worker never lets the child compute its late statistics", "gradexplorer/ui/worker.py",
           "            picture_made.set()  # the picture", "            pass  # the picture",
           ("tests/ui/test_main_window.py::test_the_isolated_engine_survives_a_segfault_and_keeps_the_previous_capture",)),
    Mutant("statistics that never come are not said missing", "gradexplorer/core/isolated/engine.py",
           "            if record.stats_pending:\n                record.note",
           "            if False:\n                record.note",
           ("tests/core/test_isolated_late_stats.py::test_statistics_that_never_come_are_said_missing_on_their_records",)),
    Mutant("lines written by orjson sort their keys", "gradexplorer/core/io/capture_json.py",
           "default=sink.default, option=orjson.OPT_NON_STR_KEYS)",
           "default=sink.default, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS)",
           ("tests/core/test_capture_json_lines.py",)),
    Mutant("equal grads found equal by a shortcut that says yes to anything", "gradexplorer/core/analysis/accounting.py",
           "sa.dtype == sb.dtype and torch.equal(sa, sb):", "True:",
           ("tests/core/test_explain.py", "tests/fidelity/test_torture.py::test_program_agrees_with_pytorch")),
    Mutant("any gradient read as zero", "gradexplorer/core/analysis/accounting.py",
           "    return not bool(record.data.any())", "    return True",
           ("tests/core/test_explain.py", "tests/fidelity/test_torture.py::test_program_agrees_with_pytorch")),
    Mutant("the child sends the parameters' gradient statistics late", "gradexplorer/core/isolated/child.py",
           "stats_first=parameter_gradients(graph, pass_count))", "stats_first=())",
           ("tests/core/test_isolated_late_stats.py::test_statistics_that_arrive_after_the_capture_equal_plain_pytorchs",)),
    Mutant("gradient flow's numpy path reads the wrong figure", "gradexplorer/core/analysis/gradient_flow.py",
           "float(magnitudes.max()), False)", "float(magnitudes.mean()), False)",
           ("tests/core/test_gradient_flow.py",)),
    Mutant("the spare is not told the heap the last run needed", "gradexplorer/core/isolated/engine.py",
           '        command += ["--prefault", str(prefault)]', "        pass",
           ("tests/core/test_isolated.py::test_the_next_spare_is_started_with_the_heap_the_last_run_needed",)),
    Mutant("the child keeps glibc's default thresholds", "gradexplorer/core/isolated/engine.py",
           '    return {**_MALLOC_ENV, **os.environ, "PYTHONUNBUFFERED": "1", MALLOC_ADDED',
           '    return {**os.environ, "PYTHONUNBUFFERED": "1", MALLOC_ADDED',
           ("tests/core/test_isolated.py::test_a_prefaulted_heap_serves_later_allocations_without_page_faults",)),
    Mutant("a ready heap larger than the memory limit is kept", "gradexplorer/core/isolated/child.py",
           "        _give_back_heap()  # the ready heap", "        pass  # the ready heap",
           ("tests/core/test_isolated.py::test_a_memory_limit_below_the_prefault_still_holds",)),
    Mutant("leftovers are freed anyway", "gradexplorer/core/capture/run.py",
           "        if leftovers is not None:\n            leftovers.append(",
           "        if False:\n            leftovers.append(",
           ("tests/core/test_collector.py::test_leftovers_hold_the_programs_objects_until_the_caller_drops_them",)),
    Mutant("an edit of .grad before the last reset still makes it 'edited'", "gradexplorer/core/analysis/accounting.py",
           "    for step in since_last_reset(steps):\n", "    for step in steps:\n",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[grad_edited_then_zeroed_holds_only_the_later_pass]",)),
    Mutant("the edited sentence tells an edit the last reset erased", "gradexplorer/core/analysis/explain.py",
           "    edited_after = next((s.index for s in recent if", "    edited_after = next((s.index for s in steps if",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[grad_edited_after_a_reset_is_the_one_told]",)),
    Mutant("the recorder asks grad_fn of a view PyTorch refuses it for", "gradexplorer/core/capture/recording.py",
           "            try:\n                node = out.grad_fn\n            except RuntimeError:"
           "  # a view made under no_grad, changed in place since (see grad_fn_of)\n                node = None\n",
           "            node = out.grad_fn\n",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[leaf_slice_scaled_under_no_grad_between_passes]",)),
    Mutant("the module audit reads .grad of computed tensors", "gradexplorer/core/analysis/modules.py",
           "    if grad_fn_of(t) is not None and not t.retains_grad:\n        return False\n", "",
           ("tests/core/test_explain.py::test_the_module_audit_reads_grad_only_where_pytorch_keeps_one",)),
    Mutant("an intermediate's CopySlices is told at the line that made the tensor", "gradexplorer/core/analysis/explain.py",
           "    if node_source or not _where(origin):", "    if True:",
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[retain_grad_on_a_view_changed_in_place]",)),
    Mutant("a loop variable's alias is told as an op's result", "gradexplorer/core/analysis/explain.py",
           '                note(node.target, "loop", node)\n            elif isinstance(node, ast.comprehension)',
           '                pass\n            elif isinstance(node, ast.comprehension)',
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[ema_copy_updated_under_no_grad]",
            "tests/core/test_explain.py::test_a_second_name_is_explained_by_the_statement_that_bound_it")),
    Mutant("a second name of an unreached leaf 'still gets a gradient'", "gradexplorer/core/analysis/explain.py",
           '            elif REASONS[code].severity == "ok":', '            elif True:',
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[ema_copy_updated_under_no_grad]",)),
    Mutant("a leaf's hook sentence stops at the hook's first change", "gradexplorer/core/analysis/explain.py",
           '{_leaf_reason(capture, info, attrs)[1]}" if info.is_leaf else ""', '" if False else ""',
           ("tests/fidelity/test_torture.py::test_program_agrees_with_pytorch[leaf_hook_clamps_one_pass_of_two]",)),
    Mutant("unnamed pass roots are told without their nodes", "gradexplorer/core/analysis/explain.py",
           'described.setdefault(f"{what}{at}", []).extend(nodes)', 'described.setdefault(f"{what}{at}", [])',
           ("tests/core/test_explain.py::test_unreached_leaf_names_unnamed_pass_roots_by_their_op_and_node",)),
    Mutant("a second name made by `b = a` is not traced to its line", "gradexplorer/core/analysis/explain.py",
           "    return _plain_assignments(capture.code).get((target, value))", "    return None",
           ("tests/core/test_explain.py::test_notes_alias_program",)),
    Mutant("a caption made before the statistics arrive is kept", "gradexplorer/ui/graph_view.py",
           "            if _waits_for_stats(self.attrs):  # kept once", "            if False:  # kept once",
           ("tests/ui/test_late_stats_inspector.py::test_graph_captions_and_tooltips_made_before_the_statistics_arrive_are_made_again",)),
    Mutant("the view does not paint pending captions again", "gradexplorer/ui/graph_view.py",
           "                    view.paint_again_soon()", "                    pass",
           ("tests/ui/test_late_stats_inspector.py::test_graph_captions_and_tooltips_made_before_the_statistics_arrive_are_made_again",)),
    Mutant("a tooltip made before the statistics arrive is kept", "gradexplorer/ui/graph_view.py",
           "            self._tip_ready = not _waits_for_stats(self.attrs)", "            self._tip_ready = True",
           ("tests/ui/test_late_stats_inspector.py::test_graph_captions_and_tooltips_made_before_the_statistics_arrive_are_made_again",)),
    Mutant("waiting for the spare takes its timeout twice", "gradexplorer/core/isolated/engine.py",
           "        if not ready.wait(max(0.0, deadline - time.monotonic())):", "        if not ready.wait(timeout):",
           ("tests/core/test_isolated.py::test_waiting_for_the_spare_ends_within_its_timeout",)),
    Mutant("the program sees the engine's glibc settings", "gradexplorer/core/isolated/child.py",
           "    _hide_our_settings()\n", "    pass\n",
           ("tests/core/test_isolated.py::test_the_program_does_not_see_the_engines_glibc_settings",)),
    Mutant("the child sends the graph in one file, no parts ahead", "gradexplorer/core/isolated/child.py",
           "        send_nodes(graph, sink, send_part)\n", "        pass\n",
           ("tests/core/test_handover_parts.py::test_the_app_reads_the_parts_while_the_child_still_writes",),
           also=(("gradexplorer/core/isolated/child.py",
                  'sink = write_session_container(session, fh, compress=False, sink=sent["sink"])',
                  "sink = write_session_container(session, fh, compress=False, defer_stats=True)"),)),
    Mutant("the app reads the parts only once the file is written", "gradexplorer/core/isolated/engine.py",
           "                if parts.read < state[\"parts\"]:  # one part", "                if False:  # one part",
           ("tests/core/test_handover_parts.py::test_the_app_reads_the_parts_while_the_child_still_writes",)),
    Mutant("a refused part leaves the app waiting for the rest", "gradexplorer/core/isolated/engine.py",
           "                if parts.refused:  # no use waiting for the rest\n                    return False\n",
           "                pass\n",
           ("tests/core/test_handover_parts.py::test_a_part_the_app_refuses_ends_the_run_at_once_with_a_clear_error",)),
    Mutant("a part that is a FIFO is opened", "gradexplorer/core/isolated/engine.py",
           "                if problem:\n                    raise DocumentError(f\"{name} is {problem}\")",
           "                if False:\n                    raise DocumentError(f\"{name} is {problem}\")",
           ("tests/core/test_handover_parts.py::test_a_part_that_is_a_fifo_is_refused_at_once",)),
    Mutant("a part's values may replace an earlier part's", "gradexplorer/core/io/session.py",
           "        if twice:\n", "        if False:\n", ("tests/core/test_handover_parts.py::test_values_sent_twice_are_refused",)),
    Mutant("parts do not count towards the size limit", "gradexplorer/core/io/session.py",
           "            partial.size += sum(info.file_size for info in infos)", "            pass",
           ("tests/core/test_handover_parts.py::test_parts_count_towards_the_size_limit",)),
    Mutant("the container's records are numbered from zero after parts", "gradexplorer/core/io/session.py",
           "        records = [] if partial is None else list(partial.records)", "        records = []",
           ("tests/core/test_handover_parts.py::test_a_capture_sent_in_parts_reads_back_as_the_whole_file",)),
    Mutant("a part goes without its parameters' gradient statistics", "gradexplorer/core/io/capture_json.py",
           "        self.fill_stats()\n        records, tensors = self.records, self.tensors",
           "        records, tensors = self.records, self.tensors",
           ("tests/core/test_handover_parts.py::test_a_capture_sent_in_parts_reads_back_as_the_whole_file",)),
    Mutant("the collector is paused part by part", "gradexplorer/core/isolated/engine.py",
           "                if self.read == 0:\n                    self._pause.enter_context(paused_collection())\n"
           "                read_capture_part(path.read_bytes(), self.partial, name=name)",
           "                with paused_collection():\n"
           "                    read_capture_part(path.read_bytes(), self.partial, name=name)",
           ("tests/core/test_handover_parts.py::test_the_collector_stays_paused_from_the_first_part_to_the_end_of_the_hand_over",)),
    Mutant("the collector stays paused after the hand-over", "gradexplorer/core/isolated/engine.py",
           "        if parts is not None:\n            parts.release()\n", "        pass\n",
           ("tests/core/test_handover_parts.py::test_the_collector_runs_again_when_an_isolated_run_ends",)),
    Mutant("a child that dies after some parts is read as if it had finished", "gradexplorer/core/isolated/engine.py",
           "        if written and not refused and result_path.exists():",
           "        if (written or parts.read) and not refused and result_path.exists():",
           ("tests/core/test_handover_parts.py::test_a_child_that_dies_between_two_parts_is_a_crash_report_with_its_line",
            "tests/core/test_handover_parts.py::test_a_child_that_dies_writing_the_file_after_its_parts_is_a_crash_report_with_its_line")),
    Mutant("a record is reused after its tensor changed in place", "gradexplorer/core/records/tensors.py",
           "if made is not None and made[0] is t and made[1] == version:",
           "if made is not None and made[0] is t:",
           ("tests/core/test_records.py::test_a_record_maker_describes_each_tensor_once_until_it_changes",)),
    Mutant("the capture's parts describe the same tensor separately", "gradexplorer/core/capture/run.py",
           "saved_values=saved_values, timings=phases, records=record_of, roots=roots)",
           "saved_values=saved_values, timings=phases, records=None, roots=roots)",
           ("tests/core/test_records.py::test_a_parameter_has_one_record_wherever_the_capture_shows_it",)),
    Mutant("the reentrant checkpoint's delivered gradient loses its note", "gradexplorer/core/graph/build.py",
           "        if note:  # its own record", "        if False:  # its own record",
           ("tests/core/test_records.py::test_a_record_with_its_own_note_is_not_shared",)),
    Mutant("the fast record path drops the note", "gradexplorer/core/records/tensors.py",
           "_dtype_name(t.dtype), \"cpu\", t.requires_grad, None, t.detach(), note)",
           "_dtype_name(t.dtype), \"cpu\", t.requires_grad, None, t.detach(), \"\")",
           ("tests/core/test_records.py::test_the_fast_path_describes_a_tensor_like_the_general_path",)),
    Mutant("equal values over the cap are compared by their statistics", "gradexplorer/core/analysis/accounting.py",
           "if sa is not None and sb is not None and sa.dtype == sb.dtype and torch.equal(sa, sb):",
           "if False:",
           ("tests/core/test_records.py::test_equal_values_over_the_cap_compare_without_statistics",)),
    Mutant("the worker frees the program before the picture", "gradexplorer/ui/worker.py",
           "freeze_result=True, leftovers=leftovers)", "freeze_result=True)",
           ("tests/ui/test_large_graphs.py::test_worker_frees_the_program_after_the_picture_not_before",)),
    Mutant("the worker never frees the program", "gradexplorer/ui/worker.py",
           "            release_leftovers(leftovers)\n", "",
           ("tests/ui/test_large_graphs.py::test_worker_frees_the_program_after_the_picture_not_before",)),
    Mutant("released leftovers keep the program's globals", "gradexplorer/core/capture/run.py",
           "        if self.namespace is not None:\n            _release_namespace(self.namespace)\n", "",
           ("tests/core/test_collector.py::test_released_leftovers_free_the_program_without_a_collection",)),
    Mutant("a view made under no_grad is given a gradient edge", "gradexplorer/core/graph/autograd_nodes.py",
           "    return None if node is None else (node, t.output_nr)", "    return node, t.output_nr",
           ("tests/core/test_autograd_nodes.py::test_edge_of_agrees_with_pytorch",)),
    Mutant("a parameter registered under two names is listed twice", "gradexplorer/core/analysis/modules.py",
           "        if value is not None and id(value) not in seen:", "        if value is not None:",
           ("tests/core/test_module_state.py::test_own_tensors_match_pytorchs_own_listing",)),
    Mutant("a class's own named_parameters is bypassed", "gradexplorer/core/analysis/modules.py",
           "    if members_kept and cls.named_parameters is _NAMED_PARAMETERS:",
           "    if True:", ("tests/core/test_module_state.py::test_own_tensors_match_pytorchs_own_listing",)),
    Mutant("labels compute the statistics for a range", "gradexplorer/core/records/tensors.py",
           "        quick = self._finite_range()\n", "        quick = None\n",
           ("tests/core/test_records.py::test_a_label_shows_the_range_without_the_statistics",)),
    Mutant("a tensor's norm is read without flattening it", "gradexplorer/core/records/tensors.py",
           "if values.ndim == 1 else np.vdot(values, values))", "if values.ndim == 1 else np.dot(values[0], values[0]))",
           ("tests/core/test_records.py::test_finite_norm_is_pytorchs_norm",)),
    Mutant("the child's nodes go after the rest of the capture is built", "gradexplorer/core/capture/run.py",
           "        on_graph(graph, len(recorder.passes))\n", "        pass\n",
           ("tests/core/test_handover_parts.py::test_nodes_sent_as_soon_as_the_graph_is_built_read_back_as_the_whole_file",),
           also=(("gradexplorer/core/capture/run.py",
                  "    return replace(result, explanations=explain_capture(result))\n",
                  "    result = replace(result, explanations=explain_capture(result))\n"
                  "    if on_graph is not None:\n        on_graph(graph, len(recorder.passes))\n"
                  "    return result\n"),)),
    Mutant("the isolated child sends its nodes with the file", "gradexplorer/core/isolated/child.py",
           "leftovers=leftovers, on_graph=send_graph)\n", "leftovers=leftovers)\n",
           ("tests/core/test_handover_parts.py::test_the_app_reads_the_nodes_while_the_child_still_builds_the_rest",)),
    Mutant("a program that never ran leaves the child without a file", "gradexplorer/core/isolated/child.py",
           "                send_graph(cap.graph, len(cap.passes))\n", "                pass\n",
           ("tests/core/test_isolated.py::test_a_syntax_error_comes_back_with_pythons_line_and_nothing_run",)),
    Mutant("sending the nodes counts as the build", "gradexplorer/core/capture/run.py",
           '"build": built - started - handed,', '"build": built - started,',
           ("tests/core/test_handover_parts.py::test_the_time_spent_sending_the_nodes_is_not_counted_as_the_build",)),
    Mutant("the container repeats the nodes sent ahead", "gradexplorer/core/io/session.py",
           "    nodes_sent = sink is not None\n", "    nodes_sent = False\n",
           ("tests/core/test_handover_parts.py::test_nodes_sent_as_soon_as_the_graph_is_built_read_back_as_the_whole_file",)),
    Mutant("shared saved values are keyed without their state", "gradexplorer/core/io/session.py",
           "                key = (name, state, text)\n", "                key = (name, text)\n",
           ("tests/core/test_session_shortcuts.py::test_a_bad_state_is_refused_after_the_same_saved_value_was_read_well",)),
    Mutant("a saved value with a tensor is taken from the shared ones", "gradexplorer/core/io/session.py",
           '        if type(s) is dict and s.get("tensor") is None:\n', "        if type(s) is dict:\n",
           ("tests/core/test_session_shortcuts.py::test_a_saved_value_with_a_tensor_is_not_taken_for_one_without",)),
    Mutant("record numbers past the list are looked up", "gradexplorer/core/io/session.py",
           "if all(type(v) is int and 0 <= v < count for v in value):", "if all(type(v) is int for v in value):",
           ("tests/core/test_session_shortcuts.py::test_a_record_number_past_the_list_is_refused_clearly",)),
    Mutant("an older file's root kind skips its reading", "gradexplorer/core/io/session.py",
           '_NODE_KINDS = frozenset({"leaf", "op", "custom"})', '_NODE_KINDS = frozenset({"leaf", "op", "custom", "root"})',
           ("tests/core/test_session.py::test_a_root_node_is_an_op_with_is_root_and_older_files_saying_root_read_the_same",)),
    Mutant("a node's plain fields take booleans for numbers", "gradexplorer/core/io/session.py",
           "_INT_OR_NONE = (int, type(None))", "_INT_OR_NONE = (int, bool, type(None))",
           ("tests/core/test_session_shortcuts.py::test_a_node_field_of_the_wrong_type_is_refused_clearly",)),
    Mutant("a source line's number is not checked", "gradexplorer/core/io/session.py",
           "        if type(line) is int and type(text) is str and (file is None or type(file) is str):\n",
           "        if type(text) is str and (file is None or type(file) is str):\n",
           ("tests/core/test_session_shortcuts.py::test_a_node_field_of_the_wrong_type_is_refused_clearly",)),
    Mutant("a gradient order's values are not checked", "gradexplorer/core/io/session.py",
           "all(type(v) is int and k.isdigit() for k, v in order.items())", "all(k.isdigit() for k, v in order.items())",
           ("tests/core/test_session_shortcuts.py::test_a_node_field_of_the_wrong_type_is_refused_clearly",)),
    Mutant("an edge to an unknown node is added", "gradexplorer/core/io/session.py",
           "and all(type(s) is int for s in slots) and u in graph and v in graph):",
           "and all(type(s) is int for s in slots)):",
           ("tests/core/test_session_shortcuts.py::test_a_bad_edge_is_refused_clearly",)),
    # -- issue 26: your real project (scripts as Python runs them, project files, scopes, the recording API) --
    Mutant("the script's folder is not sys.path[0]", "gradexplorer/core/capture/script.py",
           "    sys.path.insert(0, run.project_folder(filename))\n", "",
           ("tests/core/test_project_corpus.py::test_a_project_run_as_a_script_agrees_with_python[mlp_argparse]",)),
    Mutant("the script does not get its arguments", "gradexplorer/core/capture/script.py",
           "    sys.argv = run.argv(filename)\n", "    sys.argv = [filename]\n",
           ("tests/core/test_project_corpus.py::test_a_project_run_as_a_script_agrees_with_python[mlp_argparse]",)),
    Mutant("sys.argv and sys.path are not given back", "gradexplorer/core/capture/script.py",
           "        sys.argv = saved_argv\n        sys.path[:] = saved_path\n", "        pass\n",
           ("tests/core/test_project_corpus.py::test_a_script_runs_with_pythons_process_state_and_gives_it_back",)),
    Mutant("a PEP 263 coding line is ignored", "gradexplorer/core/capture/script.py",
           "        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)\n",
           "        encoding = 'utf-8'\n",
           ("tests/core/test_recording_api.py::test_a_cp950_script_runs_from_the_cli",)),
    Mutant("the project's other files are not the user's code", "gradexplorer/core/capture/recording.py",
           "            if project is not None:\n                shown = known.get(co_filename, False)",
           "            if False:\n                shown = known.get(co_filename, False)",
           ("tests/core/test_project_corpus.py::test_capture_from_another_folder_names_modules_and_files",)),
    Mutant("project modules are not forgotten after a run", "gradexplorer/core/capture/project.py",
           "            if name not in before and name != \"__main__\" and project.owns_module(module):\n"
           "                sys.modules.pop(name, None)\n                _MODULES.pop(name, None)\n",
           "            pass\n",
           ("tests/core/test_project_corpus.py::test_an_edit_to_a_project_module_is_seen_by_the_next_run",)),
    Mutant("node hooks in project modules are not rewritten", "gradexplorer/core/capture/project.py",
           "        return compile(rewrite_node_hook_calls(tree), path, \"exec\", dont_inherit=True, optimize=_optimize)",
           "        return compile(tree, path, \"exec\", dont_inherit=True, optimize=_optimize)",
           ("tests/core/test_project_corpus.py::test_hooks_registered_in_a_project_module_are_seen",)),
    Mutant("names come from the globals only", "gradexplorer/core/capture/run.py",
           "    scopes = [*outer_scopes, *frame_scopes(list(recorder.frames.values()))]",
           "    scopes = [*outer_scopes]",
           ("tests/core/test_project_corpus.py::test_a_project_run_as_a_script_agrees_with_python[package_relative]",)),
    Mutant("a module no variable holds stays unnamed", "gradexplorer/core/capture/run.py",
           "    name_modules_that_ran(bindings, list(recorder.modules.values()))\n", "",
           ("tests/core/test_recording_api.py::test_a_module_no_variable_holds_is_named_by_its_class_and_audited",)),
    Mutant("a module's own self names it", "gradexplorer/core/capture/namespace.py",
           "    return not (name in (\"self\", \"cls\") and isinstance(value, nn.Module))",
           "    return True",
           ("tests/core/test_recording_api.py::test_a_module_no_variable_holds_is_named_by_its_class_and_audited",)),
    Mutant("a parameter keeps the first variable's name", "gradexplorer/core/capture/namespace.py",
           "            found._add_tensor(param, f\"{path}.{pname}\", scope, first=id(param) not in found.owners)",
           "            found._add_tensor(param, f\"{path}.{pname}\", scope)",
           ("tests/core/test_recording_api.py::test_a_parameter_is_named_by_its_module_path_first",)),
    Mutant("kept frames are never let go", "gradexplorer/core/capture/run.py",
           "            recorder.release_frames()\n            _release_namespace(namespace)",
           "            _release_namespace(namespace)",
           ("tests/core/test_collector.py::test_a_program_whose_functions_ran_ops_is_freed_without_a_collection",)),
    Mutant("a carriage return is kept as text", "gradexplorer/core/capture/streams.py",
           "            if \"\\r\" in segment:\n                segment = segment.rsplit(\"\\r\", 1)[1]\n"
           "                self._line, self._line_chars = [], 0\n",
           "",
           ("tests/ui/test_projects.py::test_a_progress_bar_is_one_updating_line",)),
    Mutant("the console shows every state of a progress bar", "gradexplorer/ui/console.py",
           "        self._insert_rewriting(piece, self._error_format if stream == \"stderr\" else self._plain_format)",
           "        self._insert(piece, self._error_format if stream == \"stderr\" else self._plain_format)",
           ("tests/ui/test_projects.py::test_a_progress_bar_is_one_updating_line",)),
    Mutant("input() is not answered by the console", "gradexplorer/ui/worker.py",
           "run=self.job.run, on_output=self._on_output, read_input=self._read_input,",
           "run=self.job.run, on_output=self._on_output,",
           ("tests/ui/test_projects.py::test_input_reads_a_line_typed_into_the_console",)),
    Mutant("a project file's source opens the editor", "gradexplorer/ui/main_window.py",
           "        if not file:\n            self.sources.show_program(line)",
           "        if True:\n            self.sources.show_program(line)",
           ("tests/ui/test_projects.py::test_open_a_script_set_arguments_run_and_follow_a_node_into_its_module",)),
    Mutant("the editor marks a model.py line number", "gradexplorer/ui/main_window.py",
           "        self.editor.set_error_line(cap.error.program_line if cap.error is not None else None)",
           "        self.editor.set_error_line(cap.error.line if cap.error is not None else None)",
           ("tests/ui/test_projects.py::test_a_traceback_line_in_a_project_file_opens_it",)),
    Mutant("the session forgets the run's arguments", "gradexplorer/core/io/session.py",
           "        \"run\": {\"args\": list(session.args), \"cwd\": session.cwd},",
           "        \"run\": {\"args\": [], \"cwd\": None},",
           ("tests/ui/test_projects.py::test_arguments_and_folder_are_saved_in_the_session_and_files_reopen_without_the_project",)),
    Mutant("the inspector does not say where a name is held", "gradexplorer/ui/main_window.py",
           "        self.inspector.show_node(node_id, cap.graph.nodes[node_id], cap.passes, verify_node(cap, node_id),\n"
           "                                 self._scopes_of(node_id))",
           "        self.inspector.show_node(node_id, cap.graph.nodes[node_id], cap.passes, verify_node(cap, node_id))",
           ("tests/ui/test_projects.py::test_names_held_in_functions_say_where",)),
    Mutant("the CLI does not give the script the arguments after --", "gradexplorer/cli.py",
           "    args.script_args = script_args\n", "    args.script_args = []\n",
           ("tests/core/test_project_corpus.py::test_capture_from_another_folder_names_modules_and_files",)),
    Mutant("the app ignores a script's arguments on its command line", "gradexplorer/ui/app.py",
           "            window.set_run_arguments(script_args)\n", "            pass\n",
           ("tests/ui/test_projects.py::test_gradexplorer_script_with_arguments_opens_the_app_with_them",)),
)

#: For the "Stop armed for the whole capture" mutant: a guard that arms at the
#: start of capture() (before exec) and disarms only after the build.
_LATE_GUARD = '''

def _armed_late(worker):
    import contextlib

    state = worker._armed_for_stop()
    state.__enter__()

    @contextlib.contextmanager
    def guard():
        yield
        worker.user_code_finished.emit()

    worker.finished.connect(lambda: state.__exit__(None, None, None))
    return guard
'''


def run_one(mutant: Mutant) -> tuple[str, float]:
    edits = ((mutant.path, mutant.old, mutant.new), *mutant.also)
    originals: dict[Path, str] = {}
    for rel, old, new in edits:
        path = ROOT / rel
        text = originals.get(path, path.read_text())
        originals.setdefault(path, text)
        if old not in text:
            return "stale (the edit no longer applies)", 0.0
    started = time.perf_counter()
    try:
        current = dict(originals)
        for rel, old, new in edits:
            path = ROOT / rel
            current[path] = current[path].replace(old, new, 1)
            if "_armed_late(" in new:
                current[path] += _LATE_GUARD
        for path, text in current.items():
            path.write_text(text)
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-p", "no:warnings", *mutant.tests], cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
    except subprocess.TimeoutExpired:
        return "killed (timed out)", time.perf_counter() - started
    finally:
        for path, text in originals.items():
            path.write_text(text)
    return ("killed" if done.returncode != 0 else "SURVIVED"), time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--only", metavar="TEXT", help="run only the mutants whose name contains TEXT")
    args = parser.parse_args(argv)
    if args.list:
        for mutant in MUTANTS:
            print(f"{mutant.name}: {mutant.path} ({', '.join(mutant.tests)})")
        return 0
    chosen = [m for m in MUTANTS if args.only is None or args.only in m.name]
    bad = 0
    for mutant in chosen:
        outcome, seconds = run_one(mutant)
        print(f"{outcome:<10} {seconds:5.1f}s  {mutant.name}", flush=True)
        bad += not outcome.startswith("killed")
    print(f"{len(chosen) - bad} of {len(chosen)} mutants killed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
