<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_TW" sourcelanguage="en">
  <context>
    <name>capture_display</name>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>Computing why each name gets a gradient or not…</source>
      <translation>正在計算每個名稱為何得到（或得不到）梯度…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>Computing where each module's parameters, buffers and tensors live…</source>
      <translation>正在計算每個模組的參數、緩衝區與張量位於何處…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>Computing the gradient flow…</source>
      <translation>正在計算梯度流…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>Not computed: the run ended before this was made (the console says why). Press Run again.</source>
      <translation>未計算：執行在這部分完成前就結束了（原因見主控台）。請再按一次「執行」。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>gradexplorer: {sentence}</source>
      <translation>gradexplorer：{sentence}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>Plots ({count})</source>
      <translation>圖表（{count}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/capture_display.py" />
      <source>Plots</source>
      <translation>圖表</translation>
    </message>
  </context>
  <context>
    <name>comparison</name>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>this run</source>
      <translation>這次執行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>same</source>
      <translation>相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>changed</source>
      <translation>有變</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>added</source>
      <translation>新增</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>removed</source>
      <translation>移除</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>{count} same</source>
      <translation>{count} 個相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>{count} changed</source>
      <translation>{count} 個有變</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>{count} added</source>
      <translation>{count} 個新增</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>{count} removed</source>
      <translation>{count} 個移除</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Compare with session</source>
      <translation>與工作階段比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>gradexplorer sessions (*{suffix} *.json)</source>
      <translation>gradexplorer 工作階段 (*{suffix} *.json)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Nothing to compare yet: run the code (or open a session) first</source>
      <translation>還沒有可比較的內容：請先執行程式碼（或開啟工作階段）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Comparing with {name}…</source>
      <translation>正在與 {name} 比較…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Cannot compare with {name}: {why}</source>
      <translation>無法與 {name} 比較：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Cannot compare with {name}</source>
      <translation>無法與 {name} 比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>(not bound there)</source>
      <translation>（那次沒有這個名稱）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Compared with {name}:
{report}</source>
      <translation>已與 {name} 比較：
{report}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>; pass {number} of {count} shown: {counts}</source>
      <translation>；顯示第 {number} 次（共 {count} 次）反向傳播：{counts}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Compared with {name}: {counts}{shown}</source>
      <translation>已與 {name} 比較：{counts}{shown}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>every pass</source>
      <translation>所有反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>pass {number} of {count}</source>
      <translation>第 {number} 次（共 {count} 次）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Compared with {name}, {which}: {counts}</source>
      <translation>已與 {name} 比較，{which}：{counts}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>Colour: compared with another run</source>
      <translation>顏色：與另一次執行比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison.py" />
      <source>, matched by {rule}</source>
      <translation>，依「{rule}」配對</translation>
    </message>
  </context>
  <context>
    <name>comparison_box</name>
    <message>
      <location filename="../../gradexplorer/ui/comparison_box.py" />
      <source>Compared with another run</source>
      <translation>與另一次執行比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison_box.py" />
      <source>Comparison</source>
      <translation>比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison_box.py" />
      <source>Compared: {status}</source>
      <translation>比較結果：{status}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison_box.py" />
      <source>difference</source>
      <translation>差異</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison_box.py" />
      <source>(only in A)</source>
      <translation>（只在 A）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/comparison_box.py" />
      <source>(only in B)</source>
      <translation>（只在 B）</translation>
    </message>
  </context>
  <context>
    <name>console</name>
    <message>
      <location filename="../../gradexplorer/ui/console.py" />
      <source>Console</source>
      <translation>主控台</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/console.py" />
      <source>[output capped at {most:,} characters: the first and the last {half:,} are shown; {dropped:,} characters in between are not]
</source>
      <translation>[輸出上限為 {most:,} 個字元：只顯示最前與最後各 {half:,} 個字元；中間的 {dropped:,} 個字元未顯示]
</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/console.py" />
      <source>Program input</source>
      <translation>程式輸入</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/console.py" />
      <source>Your program is waiting for input(): type a line and press Enter (Ctrl+D: no more input)</source>
      <translation>你的程式正在等待 input()：輸入一行後按 Enter（Ctrl+D：不再輸入）</translation>
    </message>
  </context>
  <context>
    <name>crash_recovery</name>
    <message>
      <location filename="../../gradexplorer/ui/crash_recovery.py" />
      <source>Autosave failed: {why} (in {folder}). Your work is not protected against a crash until it works again: save it (Ctrl+S).</source>
      <translation>自動儲存失敗：{why}（於 {folder}）。在它恢復正常之前，你的工作不受當機保護：請手動儲存（Ctrl+S）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/crash_recovery.py" />
      <source>Autosave failed</source>
      <translation>自動儲存失敗</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/crash_recovery.py" />
      <source>Autosave to {folder} failed: {why}</source>
      <translation>自動儲存到 {folder} 失敗：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/crash_recovery.py" />
      <source>The autosaved capture could not be read ({exc}); restoring the text.</source>
      <translation>無法讀取自動儲存的擷取結果（{exc}）；只還原文字。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/crash_recovery.py" />
      <source>Restored the autosaved work (not saved yet)</source>
      <translation>已還原自動儲存的工作（尚未儲存）</translation>
    </message>
  </context>
  <context>
    <name>edge_drawing</name>
    <message>
      <location filename="../../gradexplorer/ui/edge_drawing.py" />
      <source>1 edge</source>
      <translation>1 條邊</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/edge_drawing.py" />
      <source>{count} edges</source>
      <translation>{count} 條邊</translation>
    </message>
  </context>
  <context>
    <name>editor</name>
    <message>
      <location filename="../../gradexplorer/ui/editor.py" />
      <source>Code editor</source>
      <translation>程式碼編輯器</translation>
    </message>
  </context>
  <context>
    <name>gradient_flow_pane</name>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>gradient norm ‖g‖</source>
      <translation>梯度範數 ‖g‖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>mean |g|</source>
      <translation>平均 |g|</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>max |g|</source>
      <translation>最大 |g|</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>no gradient: frozen (requires_grad off)</source>
      <translation>沒有梯度：已凍結（requires_grad 關閉）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>no gradient: no pass reached it</source>
      <translation>沒有梯度：沒有任何反向傳播到達</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>Gradient flow</source>
      <translation>梯度流</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>Run code with nn.Module parameters and a backward pass to see its gradient flow.</source>
      <translation>執行含有 nn.Module 參數與反向傳播的程式碼，即可看到它的梯度流。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>Gradient measure</source>
      <translation>梯度量度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>Passes shown</source>
      <translation>顯示的反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>Gradient warnings</source>
      <translation>梯度警告</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>Gradient flow chart</source>
      <translation>梯度流圖表</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>No parameter received a gradient: run code with nn.Module parameters and a backward pass to see its gradient flow.</source>
      <translation>沒有任何參數收到梯度：執行含有 nn.Module 參數與反向傳播的程式碼，即可看到它的梯度流。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>all passes</source>
      <translation>所有反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>all {count} passes (median, min-max)</source>
      <translation>全部 {count} 次反向傳播（中位數、最小–最大）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>pass {number}</source>
      <translation>第 {number} 次</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>{count} frozen</source>
      <translation>{count} 個已凍結</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>{count} not reached</source>
      <translation>{count} 個未到達</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>{parameters} parameters × {passes} pass(es), in the order the forward pass used them (input side on the left)</source>
      <translation>{parameters} 個參數 × {passes} 次反向傳播，依前向傳播使用它們的順序排列（輸入端在左）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>; no gradient: {missing}</source>
      <translation>；沒有梯度：{missing}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>. {vanishing} vanishing, {exploding} exploding (below 1/1000 or above 1000× the pass's median norm, or NaN/Inf). Click a point or a warning to select the parameter.</source>
      <translation>。{vanishing} 個消失、{exploding} 個爆炸（低於該次反向傳播中位範數的 1/1000 或高於 1000 倍，或為 NaN/Inf）。按一下資料點或警告即可選取該參數。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>… and {count} more</source>
      <translation>…還有 {count} 個</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>min-max over {passes} passes</source>
      <translation>{passes} 次反向傳播的最小–最大</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>median over {passes} passes</source>
      <translation>{passes} 次反向傳播的中位數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gradient_flow_pane.py" />
      <source>parameters in the order the forward pass used them, by module</source>
      <translation>依前向傳播使用順序排列的參數，按模組分組</translation>
    </message>
  </context>
  <context>
    <name>graph_export</name>
    <message>
      <location filename="../../gradexplorer/ui/graph_export.py" />
      <source>gradexplorer autograd graph</source>
      <translation>gradexplorer autograd 圖</translation>
    </message>
  </context>
  <context>
    <name>graph_navigator</name>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Pass</source>
      <translation>反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Backward pass shown</source>
      <translation>顯示的反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Which backward pass the picture shows (its nodes, its gradients); a training loop opens on its last pass</source>
      <translation>圖中顯示哪一次反向傳播（它的節點與梯度）；訓練迴圈會先顯示最後一次</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Depth</source>
      <translation>深度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Module depth</source>
      <translation>模組深度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>How deep the module boxes are opened: left, top-level modules as boxes; right, every node</source>
      <translation>模組方塊展開的深度：最左為只顯示最上層模組方塊；最右為顯示每個節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>all {count} passes</source>
      <translation>全部 {count} 次反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>pass {number} of {count}</source>
      <translation>第 {number} 次（共 {count} 次）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>all nodes</source>
      <translation>所有節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>{value} of {top}</source>
      <translation>{value} / {top}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Depth: {text}</source>
      <translation>深度：{text}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Select a node to see which modules it is in</source>
      <translation>選取節點即可看到它屬於哪些模組</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_navigator.py" />
      <source>Fold into {path} and select it</source>
      <translation>收合成 {path} 並選取</translation>
    </message>
  </context>
  <context>
    <name>graph_view</name>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>names: </source>
      <translation>名稱：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>value: </source>
      <translation>值：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>grad: </source>
      <translation>梯度：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>no gradient reached this node</source>
      <translation>沒有梯度到達這個節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>has hooks</source>
      <translation>有鉤子（hook）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>{title} · {count} nodes{norm}</source>
      <translation>{title} · {count} 個節點{norm}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>module {path} ({title})</source>
      <translation>模組 {path}（{title}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>{count} nodes, {inputs} edges in, {outputs} out</source>
      <translation>{count} 個節點，{inputs} 條邊進入，{outputs} 條邊離開</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>total gradient norm {grad_norm}</source>
      <translation>梯度總範數 {grad_norm}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>same structure as {count} other block(s)</source>
      <translation>與另外 {count} 個區塊結構相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>NaN/Inf inside (First NaN finds where)</source>
      <translation>內含 NaN/Inf（「第一個 NaN」可找出位置）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>double-click to expand</source>
      <translation>按兩下展開</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/graph_view.py" />
      <source>Autograd graph</source>
      <translation>Autograd 圖</translation>
    </message>
  </context>
  <context>
    <name>gui_thread_guard</name>
    <message>
      <location filename="../../gradexplorer/ui/gui_thread_guard.py" />
      <source>{what} was refused: the program runs in gradexplorer's worker thread, and Qt lets only the app's GUI thread make widgets or end the application (it crashed or froze the app). Run the program in the isolated engine (the Engine box: isolated process), where it has a process of its own, or outside gradexplorer.</source>
      <translation>{what} 遭到拒絕：程式在 gradexplorer 的工作執行緒中執行，而 Qt 只允許應用程式的 GUI 執行緒建立元件或結束應用程式（否則會讓應用程式當掉或凍結）。請在獨立引擎中執行程式（引擎選單：獨立行程），它在那裡有自己的行程；或在 gradexplorer 之外執行。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/gui_thread_guard.py" />
      <source>Making a {name}</source>
      <translation>建立 {name}</translation>
    </message>
  </context>
  <context>
    <name>inspector</name>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>scalar</source>
      <translation>純量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>{dims} {dtype} on {device}</source>
      <translation>{dims} {dtype}，位於 {device}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>‖x‖ {known_norm}; min, max, mean and std are on their way from the isolated process…</source>
      <translation>‖x‖ {known_norm}；最小、最大、平均與標準差正從獨立行程傳來…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>statistics on their way from the isolated process…</source>
      <translation>統計值正從獨立行程傳來…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>min {min}  max {max}  mean {mean}  std {std}</source>
      <translation>最小 {min}  最大 {max}  平均 {mean}  標準差 {std}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>NaN {nan_count}  Inf {inf_count}</source>
      <translation>NaN {nan_count}  Inf {inf_count}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>{title} histogram</source>
      <translation>{title} 直方圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>{title} summary</source>
      <translation>{title} 摘要</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>{title} values</source>
      <translation>{title} 數值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>filled .grad</source>
      <translation>填入 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>added to .grad</source>
      <translation>加到 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>a hook took it (.grad set to None)</source>
      <translation>被鉤子取走（.grad 設為 None）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>a hook changed .grad</source>
      <translation>鉤子改變了 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>nothing arrived</source>
      <translation>沒有收到任何東西</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>DistributedDataParallel's reducer wrote the mean over the processes</source>
      <translation>DistributedDataParallel 的 reducer 寫入了各行程的平均值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>.grad already held a value</source>
      <translation>.grad 原本已有值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>.grad was reset before this pass</source>
      <translation>.grad 在這次反向傳播前被重設</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>.grad was edited before this pass</source>
      <translation>.grad 在這次反向傳播前被修改</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>verified</source>
      <translation>已驗證</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>unverified</source>
      <translation>未驗證</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>wrong</source>
      <translation>錯誤</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Inspector</source>
      <translation>檢視器</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Click a node to inspect it.</source>
      <translation>按一下節點即可檢視。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Replay: this step of the backward pass</source>
      <translation>重播：反向傳播的這一步</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Replay step</source>
      <translation>重播步驟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Forward value</source>
      <translation>前向值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Saved tensors</source>
      <translation>保存的張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Hooks</source>
      <translation>鉤子</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>.grad (accumulated)</source>
      <translation>.grad（累積）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Leaf grad</source>
      <translation>葉節點梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Gradient</source>
      <translation>梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Backward pass</source>
      <translation>反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Pass status</source>
      <translation>反向傳播狀態</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Pass delta</source>
      <translation>本次變化</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Verification</source>
      <translation>驗證</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Value (leaf variable, end of run)</source>
      <translation>值（葉變數，執行結束時）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Forward value (when the op ran)</source>
      <translation>前向值（運算執行時）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>.grad is None</source>
      <translation>.grad 是 None</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> ({where})</source>
      <translation>（{where}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> — registered by library code</source>
      <translation> — 由函式庫程式碼註冊</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> (changed in place)</source>
      <translation>（原地修改）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>    pass {pass_index}: before {before} → after {after}{how}</source>
      <translation>    第 {pass_index} 次：之前 {before} → 之後 {after}{how}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>pass {number}</source>
      <translation>第 {number} 次</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> in {thread}</source>
      <translation>，於 {thread}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> — raised</source>
      <translation> — 發生例外</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>No backward pass reached this node.</source>
      <translation>沒有任何反向傳播到達這個節點。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>{path}  (module box)</source>
      <translation>{path}（模組方塊）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> at {where}</source>
      <translation>（{where}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>This pass raised{where}: {error}. </source>
      <translation>這次反向傳播發生例外{where}：{error}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>It raised while running this node: its gradient had arrived (shown), it sent none on.</source>
      <translation>例外發生在執行這個節點時：它的梯度已經到達（如下所示），但沒有再往下傳。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>What reached this node before the error is shown.</source>
      <translation>下面顯示的是發生錯誤前到達這個節點的內容。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>It raised before reaching this node.</source>
      <translation>例外發生在到達這個節點之前。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>No gradient arrived here in this pass.</source>
      <translation>這次反向傳播沒有梯度到達這裡。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>to inputs (by slot): </source>
      <translation>送往輸入（依插槽）：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>.grad before {before} + delivered {delivered} → .grad after {after}: {effect}</source>
      <translation>之前的 .grad {before} + 送達的 {delivered} → 之後的 .grad {after}：{effect}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source> ({before_change})</source>
      <translation>（{before_change}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/inspector.py" />
      <source>Check: {text}</source>
      <translation>檢查：{text}</translation>
    </message>
  </context>
  <context>
    <name>leaf_passes</name>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>filled</source>
      <translation>填入</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>added</source>
      <translation>新增</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>taken by a hook</source>
      <translation>被鉤子取走</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>changed by a hook</source>
      <translation>被鉤子改變</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>nothing arrived</source>
      <translation>沒有收到任何東西</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>averaged over processes (DDP)</source>
      <translation>各行程平均（DDP）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>had a value</source>
      <translation>原本有值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>reset before</source>
      <translation>之前已重設</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>edited before</source>
      <translation>之前已修改</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>Leaf gradient per pass</source>
      <translation>每次反向傳播的葉節點梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>Pass</source>
      <translation>反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>.grad before</source>
      <translation>之前的 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>Delivered</source>
      <translation>送達</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>.grad after</source>
      <translation>之後的 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>What happened</source>
      <translation>發生了什麼</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/leaf_passes.py" />
      <source>pass raised</source>
      <translation>反向傳播發生例外</translation>
    </message>
  </context>
  <context>
    <name>legend</name>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>the same in both runs</source>
      <translation>兩次執行相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>changed (value, gradient, op, dtype…)</source>
      <translation>有變（值、梯度、運算、dtype…）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>added: only in this run</source>
      <translation>新增：只在這次執行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>removed: only in the run compared with</source>
      <translation>移除：只在被比較的那次執行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>leaf (a parameter or input)</source>
      <translation>葉節點（參數或輸入）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>operation (a backward node)</source>
      <translation>運算（反向節點）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>root (.backward() started here)</source>
      <translation>根（.backward() 從這裡開始）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>custom autograd.Function</source>
      <translation>自訂 autograd.Function</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>hooks registered (gold border)</source>
      <translation>已註冊鉤子（金色外框）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>NaN/Inf inside (red border, tag)</source>
      <translation>內含 NaN/Inf（紅色外框、標籤）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>no gradient reached it (faded)</source>
      <translation>沒有梯度到達（淡化）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>module box (colour band per structure)</source>
      <translation>模組方塊（依結構上色的色帶）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>gradient norm, fixed log scale 1e{low} … 1e+{high}</source>
      <translation>梯度範數，固定對數刻度 1e{low} … 1e+{high}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>no gradient known (grey)</source>
      <translation>梯度未知（灰色）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>Colour: gradient norm</source>
      <translation>顏色：梯度範數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>Colour: compared with another run</source>
      <translation>顏色：與另一次執行比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>Colour: node kind</source>
      <translation>顏色：節點種類</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>Legend</source>
      <translation>圖例</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/legend.py" />
      <source>Legend (hover)</source>
      <translation>圖例（滑鼠移上）</translation>
    </message>
  </context>
  <context>
    <name>main_window</name>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source># Welcome to gradexplorer.
# Type PyTorch code (torch, nn and `device` are predefined), then press
# Ctrl+Enter or Run. The Examples menu has more; this is the first lesson.
</source>
      <translation># 歡迎使用 gradexplorer。
# 輸入 PyTorch 程式碼（torch、nn 與 `device` 已預先定義），然後按
# Ctrl+Enter 或「執行」。「範例」選單裡還有更多；這是第一課。
</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Inspector</source>
      <translation>檢視器</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Tensors</source>
      <translation>張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Modules</source>
      <translation>模組</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Gradient flow</source>
      <translation>梯度流</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Plots</source>
      <translation>圖表</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Tensors and modules</source>
      <translation>張量與模組</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Idle</source>
      <translation>閒置</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Run status</source>
      <translation>執行狀態</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>How the program runs</source>
      <translation>程式的執行方式</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Device {name} is not available; using cpu</source>
      <translation>裝置 {name} 無法使用；改用 cpu</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Unsaved changes</source>
      <translation>未儲存的變更</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>This session has unsaved changes. Save them first?</source>
      <translation>這個工作階段有未儲存的變更。要先儲存嗎？</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Save session</source>
      <translation>儲存工作階段</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>gradexplorer sessions (*{suffix})</source>
      <translation>gradexplorer 工作階段 (*{suffix})</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Open</source>
      <translation>開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Sessions and scripts (*{suffix} *.py *.json);;All files (*)</source>
      <translation>工作階段與腳本 (*{suffix} *.py *.json);;所有檔案 (*)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Python (*.py)</source>
      <translation>Python (*.py)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>DOT (*.dot)</source>
      <translation>DOT (*.dot)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>GraphML (*.graphml)</source>
      <translation>GraphML (*.graphml)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>JSON (*.json)</source>
      <translation>JSON (*.json)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>PNG image (*.png)</source>
      <translation>PNG 影像 (*.png)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>SVG image (*.svg)</source>
      <translation>SVG 影像 (*.svg)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Export</source>
      <translation>匯出</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>1× (screen size)</source>
      <translation>1×（螢幕大小）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>2× (sharp on high-DPI screens and slides)</source>
      <translation>2×（在高 DPI 螢幕與投影片上清晰）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>4× (print)</source>
      <translation>4×（列印）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>PNG resolution</source>
      <translation>PNG 解析度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Pixels per unit of the drawing:</source>
      <translation>繪圖每單位的像素數：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Restore unsaved work?</source>
      <translation>要還原未儲存的工作嗎？</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>A gradexplorer window did not close properly. Restore the work it autosaved at {value}?

{preview}</source>
      <translation>有一個 gradexplorer 視窗沒有正常關閉。要還原它在 {value} 自動儲存的工作嗎？

{preview}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>an unknown time</source>
      <translation>未知時間</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Arguments</source>
      <translation>引數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>What follows python SCRIPT on the command line (quoted as in a shell):</source>
      <translation>命令列中接在 python SCRIPT 之後的內容（引號規則同 shell）：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Working folder</source>
      <translation>工作資料夾</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Cannot show {file}: {exc}</source>
      <translation>無法顯示 {file}：{exc}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>{file}, line {line}</source>
      <translation>{file}，第 {line} 行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>The program does not stop</source>
      <translation>程式沒有停止</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Quit gradexplorer</source>
      <translation>結束 gradexplorer</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Keep waiting</source>
      <translation>繼續等待</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Isolated engine memory limit</source>
      <translation>獨立引擎記憶體上限</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>GiB the isolated process may allocate (this machine has {total:.0f} GiB;
0 = half of it). A bigger allocation fails with an out-of-memory error at its line.</source>
      <translation>獨立行程最多可配置的 GiB（這台電腦有 {total:.0f} GiB；
0 = 其中一半）。超過的配置會在該行以記憶體不足錯誤失敗。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>gradexplorer {version}
Shows what PyTorch autograd really does with your code.

</source>
      <translation>gradexplorer {version}
讓你看見 PyTorch autograd 實際如何處理你的程式碼。

</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Language: {language}</source>
      <translation>語言：{language}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>Language: {language} from the next start of gradexplorer</source>
      <translation>語言：下次啟動 gradexplorer 時改為{language}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/main_window.py" />
      <source>About gradexplorer</source>
      <translation>關於 gradexplorer</translation>
    </message>
  </context>
  <context>
    <name>minimap</name>
    <message>
      <location filename="../../gradexplorer/ui/minimap.py" />
      <source>Minimap</source>
      <translation>縮圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/minimap.py" />
      <source>The whole graph; the blue frame is what is on screen (click or drag to move)</source>
      <translation>整張圖；藍框是畫面上顯示的範圍（按一下或拖曳即可移動）</translation>
    </message>
  </context>
  <context>
    <name>modules_pane</name>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>Path</source>
      <translation>路徑</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>Kind</source>
      <translation>種類</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>Shape / dtype</source>
      <translation>形狀 / dtype</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>Device</source>
      <translation>裝置</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>Notes</source>
      <translation>備註</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>{notes}; compared: {change}</source>
      <translation>{notes}；比較：{change}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>compared: {change}</source>
      <translation>比較：{change}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/modules_pane.py" />
      <source>Modules</source>
      <translation>模組</translation>
    </message>
  </context>
  <context>
    <name>node_facts</name>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>leaf</source>
      <translation>葉節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>op</source>
      <translation>運算</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>custom</source>
      <translation>自訂</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Path expression</source>
      <translation>路徑運算式</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Copy</source>
      <translation>複製</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Copy the Python expression that reaches this node</source>
      <translation>複製能到達這個節點的 Python 運算式</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Copy path</source>
      <translation>複製路徑</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Source line</source>
      <translation>原始碼行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Kind</source>
      <translation>種類</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Names</source>
      <translation>名稱</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Path</source>
      <translation>路徑</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Created</source>
      <translation>建立方式</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Tensor</source>
      <translation>張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Source</source>
      <translation>原始碼</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source> (root)</source>
      <translation>（根）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>{name} in {scope}</source>
      <translation>{scope} 中的 {name}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>— (no name in the namespace)</source>
      <translation>—（命名空間中沒有名稱）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>— (use the name {name}: no grad_fn of a named result leads here)</source>
      <translation>—（請用名稱 {name}：沒有任何具名結果的 grad_fn 通到這裡）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>— (not reachable from a named tensor)</source>
      <translation>—（無法從具名張量到達）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>a leaf (requires_grad set on the tensor; grad mode does not apply)</source>
      <translation>葉節點（requires_grad 設在張量本身；與梯度模式無關）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>a leaf that does not require grad (any more)</source>
      <translation>（已）不需要梯度的葉節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>not recorded</source>
      <translation>未記錄</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>grad mode on</source>
      <translation>梯度模式開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>under torch.no_grad()</source>
      <translation>在 torch.no_grad() 之下</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>, inference mode</source>
      <translation>，推論模式</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>shape {shape}, {dtype}, {device}</source>
      <translation>形狀 {shape}，{dtype}，{device}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>{where}line {line}: {text}</source>
      <translation>{where}第 {line} 行：{text}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Open {file} at line {line} (read-only)</source>
      <translation>在第 {line} 行開啟 {file}（唯讀）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Show this line in the editor</source>
      <translation>在編輯器中顯示這一行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Module</source>
      <translation>模組</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Holds</source>
      <translation>內含</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Gradient</source>
      <translation>梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>Open</source>
      <translation>開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source> (a pattern of identical blocks)</source>
      <translation>（由相同區塊組成的樣式）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>{count} nodes; {inputs} edges in, {outputs} out</source>
      <translation>{count} 個節點；{inputs} 條邊進入，{outputs} 條邊離開</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>unknown</source>
      <translation>未知</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>; same structure as {family_size} other box(es)</source>
      <translation>；與另外 {family_size} 個方塊結構相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>norm over its nodes' gradients {norm}{same}</source>
      <translation>其節點梯度的範數 {norm}{same}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>; NaN/Inf inside</source>
      <translation>；內含 NaN/Inf</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/node_facts.py" />
      <source>double-click the box (or Ctrl+E) to open it one level</source>
      <translation>按兩下方塊（或 Ctrl+E）可展開一層</translation>
    </message>
  </context>
  <context>
    <name>pending_note</name>
    <message>
      <location filename="../../gradexplorer/ui/pending_note.py" />
      <source>Pending</source>
      <translation>計算中</translation>
    </message>
  </context>
  <context>
    <name>picture_actions</name>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>forward</source>
      <translation>前向</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>backward</source>
      <translation>反向</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>This node was not made inside an nn.Module</source>
      <translation>這個節點不是在 nn.Module 中產生的</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Still working on the previous request…</source>
      <translation>仍在處理上一個要求…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>every pass</source>
      <translation>所有反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>pass {number} of {count}</source>
      <translation>第 {number} 次（共 {count} 次）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Showing {which}: {nodes} nodes</source>
      <translation>顯示{which}：{nodes} 個節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Expanded {path}: {count} boxes and nodes on screen</source>
      <translation>已展開 {path}：畫面上有 {count} 個方塊與節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Depth {depth} would draw {count:,} boxes and nodes (more than {most:,}): open the boxes you need by double-click instead</source>
      <translation>深度 {depth} 會繪出 {count:,} 個方塊與節點（超過 {most:,}）：請改為按兩下展開你需要的方塊</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Depth {depth}: {count} boxes and nodes</source>
      <translation>深度 {depth}：{count} 個方塊與節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Collapsed {path}</source>
      <translation>已收合 {path}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>No node matches {text!r}</source>
      <translation>沒有節點符合 {text!r}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>{text!r}: match {number} of {count}</source>
      <translation>{text!r}：第 {number} 個符合（共 {count} 個）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>Filter cleared: every node shown</source>
      <translation>已清除篩選：顯示所有節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source> {count} of {total} nodes </source>
      <translation> {count} / {total} 個節點 </translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>dimmed</source>
      <translation>淡化</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>hidden</source>
      <translation>隱藏</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>{value}: {count} node(s); the rest {rest}</source>
      <translation>{value}：{count} 個節點；其餘{rest}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>No NaN or Inf in the {where} pass</source>
      <translation>{where}傳播中沒有 NaN 或 Inf</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source> (before it, {node} made Inf only, often on purpose, such as a -inf attention mask: its NaN comes later)</source>
      <translation>（在它之前，{node} 只產生了 Inf，通常是刻意的，例如 -inf 的注意力遮罩：它的 NaN 出現在後面）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>First NaN in forward that its inputs did not have: {node}{earlier}</source>
      <translation>前向傳播中第一個輸入沒有、自己才出現的 NaN：{node}{earlier}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source> ({kind})</source>
      <translation>（{kind}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source>First NaN/Inf in {where}: {node}{what}</source>
      <translation>{where}傳播中第一個 NaN/Inf：{node}{what}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/picture_actions.py" />
      <source> at {where}</source>
      <translation>（{where}）</translation>
    </message>
  </context>
  <context>
    <name>plots_pane</name>
    <message>
      <location filename="../../gradexplorer/ui/plots_pane.py" />
      <source>No figures. A program that draws with matplotlib (plt.plot(...), then plt.show()) shows its figures here: they are drawn off-screen, never in a window of their own.</source>
      <translation>沒有圖。用 matplotlib 繪圖的程式（plt.plot(...)，再 plt.show()）會在這裡顯示圖：它們在畫面外繪製，不會另開視窗。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/plots_pane.py" />
      <source>Plots</source>
      <translation>圖表</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/plots_pane.py" />
      <source> (still open when the program ended)</source>
      <translation>（程式結束時仍開著）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/plots_pane.py" />
      <source>&lt;b&gt;Figure {number}&lt;/b&gt; · {title}{note}</source>
      <translation>&lt;b&gt;圖 {number}&lt;/b&gt; · {title}{note}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/plots_pane.py" />
      <source>This figure's image could not be read.</source>
      <translation>無法讀取這張圖的影像。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/plots_pane.py" />
      <source>{width}×{height} px</source>
      <translation>{width}×{height} 像素</translation>
    </message>
  </context>
  <context>
    <name>replay</name>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Replay</source>
      <translation>重播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source> Replay backward: </source>
      <translation> 重播反向傳播：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Pass to replay</source>
      <translation>要重播的反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>The backward pass to replay, node by node, in the order the engine ran it</source>
      <translation>要逐節點重播的反向傳播，順序與引擎實際執行時相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>◁ Step back</source>
      <translation>◁ 上一步</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>The step before (the engine's previous node)</source>
      <translation>前一步（引擎執行的上一個節點）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>▶ Play</source>
      <translation>▶ 播放</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Run the pass node by node, as the engine did</source>
      <translation>像引擎一樣逐節點執行這次反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Step ▷</source>
      <translation>下一步 ▷</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>The next node the engine ran</source>
      <translation>引擎執行的下一個節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Stop replay</source>
      <translation>停止重播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Leave the replay: every node shown again</source>
      <translation>離開重播：再次顯示所有節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Replay step</source>
      <translation>重播步驟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Replay position</source>
      <translation>重播位置</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source> step {position} of {length} </source>
      <translation> 第 {position} 步（共 {length} 步） </translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>■ Pause</source>
      <translation>■ 暫停</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source> line {line}</source>
      <translation> 第 {line} 行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>torch.autograd.grad</source>
      <translation>torch.autograd.grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>backward</source>
      <translation>反向</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>pass {number}: {kind}{where}</source>
      <translation>第 {number} 次：{kind}{where}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/replay.py" />
      <source>Nothing ran in this pass: no node to replay</source>
      <translation>這次反向傳播沒有執行任何節點：沒有可重播的節點</translation>
    </message>
  </context>
  <context>
    <name>run_commands</name>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Stopping… (a running torch operation finishes first)</source>
      <translation>正在停止…（正在執行的 torch 運算會先完成）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Stopping… (cancelling the graph drawing)</source>
      <translation>正在停止…（取消繪製圖形）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source> It is at {where}.</source>
      <translation>它停在 {where}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>The program does not stop.{at} It is either in a call that Python cannot interrupt from outside (a sleep, a read from a terminal or a socket, a lock, a long native op) or it catches every Stop (a bare `except:`). Stop keeps trying. You can wait, or quit gradexplorer (unsaved work is offered for saving first). Programs like this stop at once in the isolated engine (the Engine box: isolated process).</source>
      <translation>程式沒有停止。{at}它可能正在執行 Python 無法從外部中斷的呼叫（sleep、從終端機或 socket 讀取、鎖、長時間的原生運算），或是攔下了每一次「停止」（裸的 `except:`）。「停止」會持續嘗試。你可以等待，或結束 gradexplorer（會先讓你儲存未儲存的工作）。這類程式在獨立引擎中會立即停止（引擎選單：獨立行程）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>The program does not stop</source>
      <translation>程式沒有停止</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source> ({where})</source>
      <translation>（{where}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Isolated engine memory limit: </source>
      <translation>獨立引擎記憶體上限：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>{value:g} GiB</source>
      <translation>{value:g} GiB</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>half of this machine's memory</source>
      <translation>這台電腦記憶體的一半</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>gradexplorer: these threads of your code did not stop (inside a long native call?): </source>
      <translation>gradexplorer：你的程式碼中這些執行緒沒有停止（卡在長時間的原生呼叫中？）：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>gradexplorer: the threads your code left running were stopped</source>
      <translation>gradexplorer：已停止你的程式碼遺留執行中的執行緒</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Running… {seconds:.1f} s</source>
      <translation>執行中… {seconds:.1f} 秒</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Drawn in {ms:.0f} ms: {nodes} nodes; explaining…</source>
      <translation>已在 {ms:.0f} 毫秒內繪出：{nodes} 個節點；正在產生解釋…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source> (its first picture is shown; the rest was not computed)</source>
      <translation>（顯示的是它的第一張圖；其餘部分未計算）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source> (the previous capture is still shown)</source>
      <translation>（仍顯示上一次的擷取結果）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Stopped while drawing the graph (the capture itself is complete)</source>
      <translation>在繪製圖形時停止（擷取本身已完成）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Done in {ms:.0f} ms: {nodes} nodes, {count} backward pass(es)</source>
      <translation>完成，耗時 {ms:.0f} 毫秒：{nodes} 個節點，{count} 次反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Stopped at {where}</source>
      <translation>停在 {where}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source> at {where}</source>
      <translation>（{where}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Error{where}: {exc_type}</source>
      <translation>錯誤{where}：{exc_type}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Error: {message}</source>
      <translation>錯誤：{message}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>gradexplorer: the program's code still ran after it ended (a generator's `finally` or a `__del__`, run as its objects were freed); Stop ended it.</source>
      <translation>gradexplorer：程式結束後仍有程式碼在執行（產生器的 `finally` 或 `__del__`，在其物件被釋放時執行）；已由「停止」結束。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>python {command}  (in {folder})</source>
      <translation>python {command}  （於 {folder}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Run starts the program as python {filename} {args}
from {folder}
(Run &gt; Arguments… and Run &gt; Working Folder… change it)</source>
      <translation>「執行」會以 python {filename} {args}
在 {folder} 啟動程式
（可用「執行 &gt; 引數…」與「執行 &gt; 工作資料夾…」更改）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Arguments not changed: {exc} in {text!r}</source>
      <translation>引數未變更：{text!r} 中有 {exc}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>Arguments: </source>
      <translation>引數：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>none</source>
      <translation>無</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/run_commands.py" />
      <source>The program runs in {folder}</source>
      <translation>程式在 {folder} 中執行</translation>
    </message>
  </context>
  <context>
    <name>session_files</name>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>untitled</source>
      <translation>未命名</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>New session</source>
      <translation>新工作階段</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>it is {problem}, not a Python file</source>
      <translation>它是{problem}，不是 Python 檔案</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot open {path}: {reason}</source>
      <translation>無法開啟 {path}：{reason}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot open {name}</source>
      <translation>無法開啟 {name}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Opened {name}: press Run</source>
      <translation>已開啟 {name}：請按「執行」</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Still opening {name}: {name2} was not opened</source>
      <translation>仍在開啟 {name}：未開啟 {name2}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot open {name} now: {name2} is still being opened.</source>
      <translation>現在無法開啟 {name}：{name2} 仍在開啟中。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Opening {name}…</source>
      <translation>正在開啟 {name}…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot open {name}: {why}</source>
      <translation>無法開啟 {name}：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot open {name}: showing it failed ({error_type}: {exc}); the window shows what it showed before.</source>
      <translation>無法開啟 {name}：顯示時失敗（{error_type}: {exc}）；視窗維持原本的內容。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Opened session {name} (made by gradexplorer {made}; nothing was run)</source>
      <translation>已開啟工作階段 {name}（由 gradexplorer {made} 建立；沒有執行任何程式）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Not saved: the run is still being explained; save {name} when it is done</source>
      <translation>未儲存：仍在產生這次執行的解釋；完成後再儲存 {name}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Saving {name}…</source>
      <translation>正在儲存 {name}…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot save {name}: {why}</source>
      <translation>無法儲存 {name}：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Not saved: {name}</source>
      <translation>未儲存：{name}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Saved {name}</source>
      <translation>已儲存 {name}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>(none)</source>
      <translation>（無）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Nothing to export yet: run the code first</source>
      <translation>還沒有可匯出的內容：請先執行程式碼</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Exporting {name}…</source>
      <translation>正在匯出 {name}…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>could not write {path}</source>
      <translation>無法寫入 {path}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Exported {name} at {used:.2f}× ({width}×{height} px, the most a PNG gets here; SVG keeps every detail)</source>
      <translation>已以 {used:.2f}× 匯出 {name}（{width}×{height} 像素，這是 PNG 在此的上限；SVG 會保留所有細節）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Cannot export {name}: {why}</source>
      <translation>無法匯出 {name}：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/session_files.py" />
      <source>Exported {name}</source>
      <translation>已匯出 {name}</translation>
    </message>
  </context>
  <context>
    <name>source_tabs</name>
    <message>
      <location filename="../../gradexplorer/ui/source_tabs.py" />
      <source>Source files</source>
      <translation>原始碼檔案</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/source_tabs.py" />
      <source>untitled</source>
      <translation>未命名</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/source_tabs.py" />
      <source>Source of {file}</source>
      <translation>{file} 的原始碼</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/source_tabs.py" />
      <source>{file} (read-only: the text the last run saw)</source>
      <translation>{file}（唯讀：上次執行時看到的內容）</translation>
    </message>
  </context>
  <context>
    <name>tensors_pane</name>
    <message>
      <location filename="../../gradexplorer/ui/tensors_pane.py" />
      <source>Name</source>
      <translation>名稱</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/tensors_pane.py" />
      <source>Reason</source>
      <translation>原因</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/tensors_pane.py" />
      <source>Why (no) gradient</source>
      <translation>為何（沒）有梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/tensors_pane.py" />
      <source>Line</source>
      <translation>行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/tensors_pane.py" />
      <source>{sentence}

In the run compared with: {before}</source>
      <translation>{sentence}

在被比較的那次執行中：{before}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/tensors_pane.py" />
      <source>Tensors</source>
      <translation>張量</translation>
    </message>
  </context>
  <context>
    <name>window_menus</name>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Run</source>
      <translation>執行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Run the code and capture its autograd graph (Ctrl+Enter)</source>
      <translation>執行程式碼並擷取它的 autograd 圖（Ctrl+Enter）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Stop the running code (Ctrl+.)</source>
      <translation>停止正在執行的程式碼（Ctrl+.）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>New</source>
      <translation>新增</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Open…</source>
      <translation>開啟…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Open a session (.gxsession) or a Python script</source>
      <translation>開啟工作階段（.gxsession）或 Python 腳本</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Compare with Session…</source>
      <translation>與工作階段比較…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Compare the run on screen with a saved session: what was added, removed and changed, node by node</source>
      <translation>將畫面上的執行與已儲存的工作階段比較：逐節點看出新增、移除與改變了什麼</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>End Comparison</source>
      <translation>結束比較</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Show the run's own picture again</source>
      <translation>再次顯示這次執行本身的圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Save</source>
      <translation>儲存</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Save As…</source>
      <translation>另存新檔…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Quit</source>
      <translation>結束</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Zoom In</source>
      <translation>放大</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Zoom Out</source>
      <translation>縮小</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Fit Graph</source>
      <translation>符合視窗</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>First NaN (forward)</source>
      <translation>第一個 NaN（前向）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Select the first op, in execution order, whose value has NaN/Inf</source>
      <translation>依執行順序，選取第一個值含有 NaN/Inf 的運算</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>First NaN (backward)</source>
      <translation>第一個 NaN（反向）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Select the first node, in backward order, with a NaN/Inf gradient</source>
      <translation>依反向順序，選取第一個梯度含有 NaN/Inf 的節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Collapse Module</source>
      <translation>收合模組</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Fold the selected node's module into one box (Ctrl+K)</source>
      <translation>將選取節點所屬的模組收合成一個方塊（Ctrl+K）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Expand Module</source>
      <translation>展開模組</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Open the selected module box one level (or double-click it)</source>
      <translation>將選取的模組方塊展開一層（或按兩下它）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Clear Filter</source>
      <translation>清除篩選</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Show every node again (the filter dims or hides the rest)</source>
      <translation>再次顯示所有節點（篩選會淡化或隱藏其餘節點）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Find…</source>
      <translation>尋找…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Find nodes by name, op, module or shape (Ctrl+F)</source>
      <translation>依名稱、運算、模組或形狀尋找節點（Ctrl+F）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>About gradexplorer</source>
      <translation>關於 gradexplorer</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Versions of gradexplorer, PyTorch, Python and Qt</source>
      <translation>gradexplorer、PyTorch、Python 與 Qt 的版本</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Go to Input</source>
      <translation>前往輸入</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Go to Consumer</source>
      <translation>前往使用者節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Previous in Row</source>
      <translation>同列上一個</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Next in Row</source>
      <translation>同列下一個</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>01 no_grad: b = a is only a second name</source>
      <translation>01 no_grad：b = a 只是第二個名字</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>02 no_grad: b = a + 0 is a new tensor</source>
      <translation>02 no_grad：b = a + 0 是新的張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>03 next_functions: walking the backward graph</source>
      <translation>03 next_functions：走訪反向計算圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>04 register_hook: an intermediate's gradient</source>
      <translation>04 register_hook：中間張量的梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>05 register_buffer: what moves with .to()</source>
      <translation>05 register_buffer：什麼會跟著 .to() 移動</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>06 An MLP's training steps</source>
      <translation>06 MLP 的訓練步驟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>07 A custom autograd.Function</source>
      <translation>07 自訂的 autograd.Function</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>08 Double backward</source>
      <translation>08 二階反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>09 Views and in-place ops</source>
      <translation>09 視圖與原地運算</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>10 A Transformer training step</source>
      <translation>10 Transformer 的一步訓練</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>11 A ResNet-like CNN</source>
      <translation>11 類似 ResNet 的 CNN</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>12 An LSTM unrolled by hand</source>
      <translation>12 手動展開的 LSTM</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Script (.py)…</source>
      <translation>腳本 (.py)…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Graph as DOT…</source>
      <translation>圖（DOT）…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Graph as GraphML…</source>
      <translation>圖（GraphML）…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Graph as node-link JSON…</source>
      <translation>圖（node-link JSON）…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Drawing as PNG…</source>
      <translation>繪圖（PNG）…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Drawing as SVG…</source>
      <translation>繪圖（SVG）…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Help</source>
      <translation>說明(&amp;H)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;File</source>
      <translation>檔案(&amp;F)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Open &amp;Recent</source>
      <translation>最近開啟(&amp;R)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Export</source>
      <translation>匯出(&amp;E)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Examples</source>
      <translation>範例(&amp;X)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Run</source>
      <translation>執行(&amp;R)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Arguments…</source>
      <translation>引數…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>The command-line arguments the program runs with (sys.argv[1:])</source>
      <translation>程式執行時的命令列引數（sys.argv[1:]）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Working Folder…</source>
      <translation>工作資料夾…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>The folder the program runs in (default: the script's own)</source>
      <translation>程式執行時所在的資料夾（預設：腳本本身所在的資料夾）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Run in the Script's Folder</source>
      <translation>在腳本所在資料夾執行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Run the program in its own folder again, as python SCRIPT from there</source>
      <translation>再次在程式自己的資料夾中執行，如同在那裡執行 python SCRIPT</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Isolated Engine Memory Limit…</source>
      <translation>獨立引擎記憶體上限…</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>How much memory code run in an isolated process may allocate</source>
      <translation>在獨立行程中執行的程式碼最多可配置多少記憶體</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Graph</source>
      <translation>圖(&amp;G)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Filter</source>
      <translation>篩選(&amp;F)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Colour</source>
      <translation>顏色(&amp;C)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>By Node Kind</source>
      <translation>依節點種類</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>By Gradient Norm (log)</source>
      <translation>依梯度範數（對數）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Go To</source>
      <translation>前往(&amp;G)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Clear Selection</source>
      <translation>清除選取</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;View</source>
      <translation>檢視(&amp;V)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Values on the Graph</source>
      <translation>在圖上顯示數值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Show each node's forward value (shape, range) and gradient norm above it</source>
      <translation>在每個節點上方顯示它的前向值（形狀、範圍）與梯度範數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Show Legend</source>
      <translation>顯示圖例</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>What the colours and borders of the graph mean (drawn into exports too)</source>
      <translation>圖中顏色與外框的意義（也會畫進匯出的檔案）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Show Minimap</source>
      <translation>顯示縮圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>A small picture of the whole graph when it is bigger than the view</source>
      <translation>當圖比視窗大時，顯示整張圖的小縮圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Shapes on Edges</source>
      <translation>在邊上顯示形狀</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Write the shape of the tensor each edge carries in the forward pass beside it</source>
      <translation>在每條邊旁寫出它在前向傳播中攜帶的張量形狀</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Wrap Long Lines</source>
      <translation>自動換行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Wrap the editor's long lines at its edge instead of scrolling sideways</source>
      <translation>編輯器的長行在邊緣自動換行，而不是橫向捲動</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>&amp;Language</source>
      <translation>語言(&amp;L)</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>System Default</source>
      <translation>跟隨系統</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source> Device: </source>
      <translation> 裝置：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source> Engine: </source>
      <translation> 引擎：</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Engine</source>
      <translation>引擎</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>in the app</source>
      <translation>在應用程式內</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>isolated process</source>
      <translation>獨立行程</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>In the app: fast, live inspection (the default).
Isolated process: the code runs in a child process; os._exit, a crash in native code or running out of memory becomes an error report and the app, the editor and the previous capture stay; Stop ends it at once. About a second more per run.</source>
      <translation>在應用程式內：快速，可即時檢視（預設）。
獨立行程：程式碼在子行程中執行；os._exit、原生程式碼當掉或記憶體不足都只會變成錯誤報告，應用程式、編輯器與上一次的擷取結果都會保留；「停止」會立即結束它。每次執行約多花一秒。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Find</source>
      <translation>尋找</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Find: name, op, module, shape (Enter)</source>
      <translation>尋找：名稱、運算、模組、形狀（Enter）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Find nodes</source>
      <translation>尋找節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Filter</source>
      <translation>篩選</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>What a filter does with the rest</source>
      <translation>篩選如何處理其餘節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>dim the rest</source>
      <translation>淡化其餘</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>hide the rest</source>
      <translation>隱藏其餘</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Filter count</source>
      <translation>篩選計數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Colour nodes by</source>
      <translation>節點上色依據</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Colour: kind</source>
      <translation>顏色：種類</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Colour: gradient norm (log)</source>
      <translation>顏色：梯度範數（對數）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Device</source>
      <translation>裝置</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>Where the code runs; unavailable devices say why</source>
      <translation>程式碼在哪裡執行；無法使用的裝置會說明原因</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/window_menus.py" />
      <source>{device} (unavailable)</source>
      <translation>{device}（無法使用）</translation>
    </message>
  </context>
  <context>
    <name>worker</name>
    <message>
      <location filename="../../gradexplorer/ui/worker.py" />
      <source>gradexplorer failed while capturing:
</source>
      <translation>gradexplorer 在擷取時失敗：
</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/worker.py" />
      <source>input(): the console's input was closed (no line was given)</source>
      <translation>input()：主控台的輸入已關閉（沒有提供任何一行）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/ui/worker.py" />
      <source>line {line}</source>
      <translation>第 {line} 行</translation>
    </message>
  </context>
  <context>
    <name>explain</name>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> at {place} (`{text}`)</source>
      <translation>（{place}：`{text}`）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> at {place}</source>
      <translation>（{place}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> ({place})</source>
      <translation>（{place}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>a {ops} result</source>
      <translation>一個 {ops} 的結果</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>an unnamed tensor</source>
      <translation>一個未命名的張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> (node {nodes})</source>
      <translation>（節點 {nodes}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> (nodes {nodes})</source>
      <translation>（節點 {nodes}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>its result is an index (integers carry no gradient)</source>
      <translation>它的結果是索引（整數不帶梯度）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>a comparison's result is true/false (it has no derivative)</source>
      <translation>比較的結果是真／假（沒有導數）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>sampling has no derivative (a distribution's rsample() has one where it exists)</source>
      <translation>抽樣沒有導數（在有定義時，分佈的 rsample() 有導數）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>detach() cuts the graph on purpose</source>
      <translation>detach() 會刻意切斷計算圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the value left autograd as a Python number, which carries no graph</source>
      <translation>這個值以 Python 數字的形式離開了 autograd，而 Python 數字不帶計算圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the value left autograd as a NumPy array, which carries no graph</source>
      <translation>這個值以 NumPy 陣列的形式離開了 autograd，而 NumPy 陣列不帶計算圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>grad mode was off there (torch.no_grad() or set_grad_enabled(False))</source>
      <translation>那裡的梯度模式是關閉的（torch.no_grad() 或 set_grad_enabled(False)）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>PyTorch defines no derivative for it</source>
      <translation>PyTorch 沒有為它定義導數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the result of `{code}`</source>
      <translation>`{code}` 的結果</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>a tensor that requires grad</source>
      <translation>一個需要梯度的張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} does not require grad: it was made from Python numbers, and the last value that left autograd before it was .{op}(){at}{code}, of a tensor computed from {leaves}. If {name} was computed from that number, the graph was cut there: {why}.</source>
      <translation>{name} 不需要梯度：它是由 Python 數字產生的，而在它之前最後一個離開 autograd 的值是 .{op}(){at}{code}，來自一個由 {leaves} 算出的張量。如果 {name} 是由那個數字算出來的，計算圖就在那裡被切斷了：{why}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} does not require grad: it was computed from {source} through `{op}`{at}, and {why}, so no graph leads from {name} back to {leaves}.</source>
      <translation>{name} 不需要梯度：它是由 {source} 經過 `{op}`{at} 算出的，而{why}，所以沒有計算圖能從 {name} 通回 {leaves}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> (for a classification loss: cross_entropy on the scores, not argmax and ==)</source>
      <translation>（分類損失請對分數用 cross_entropy，而不是 argmax 與 ==）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> That is why {name}.backward() raised{at}. Calling {name}.requires_grad_() would only hide the error: {leaves} would still get no gradient. Compute {name} with differentiable ops{fix}.</source>
      <translation>這就是 {name}.backward() {at}發生例外的原因。呼叫 {name}.requires_grad_() 只會掩蓋錯誤：{leaves} 仍然得不到梯度。請用可微分的運算計算 {name}{fix}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>through .{op}(){at}, where the value left autograd</source>
      <translation>經過 .{op}(){at}，值在那裡離開了 autograd</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>through `{op}`{at}, and {why}</source>
      <translation>經過 `{op}`{at}，而{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> That is why {name}.backward() raised{at}.</source>
      <translation>這就是 {name}.backward() {at}發生例外的原因。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} requires grad and {made} was computed from it, but {how}: no gradient can flow back through that step, so {name}.grad stayed None.{tail}</source>
      <translation>{name} 需要梯度，{made} 也是由它算出的，但{how}：梯度無法流回那一步，所以 {name}.grad 仍是 None。{tail}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>The torch.autograd.grad call</source>
      <translation>那次 torch.autograd.grad 呼叫</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>The backward pass</source>
      <translation>那次反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the torch.autograd.grad call</source>
      <translation>那次 torch.autograd.grad 呼叫</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the backward pass</source>
      <translation>那次反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> (in thread {thread})</source>
      <translation>（在執行緒 {thread} 中）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a leaf that requires grad{where}, but no backward pass ran, so its .grad is None.</source>
      <translation>{name} 是需要梯度的葉節點{where}，但沒有執行任何反向傳播，所以它的 .grad 是 None。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a leaf that requires grad: {pass_} filled its .grad with {value}.</source>
      <translation>{name} 是需要梯度的葉節點：{pass_}把它的 .grad 填入了 {value}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name}'s .grad already held {before} before {pass_}, which added its gradient ({delivered}) to it: .grad is now {value}. PyTorch accumulates into .grad; set {name}.grad = None first if you want only this pass's gradient.</source>
      <translation>在{pass_}之前，{name} 的 .grad 已經是 {before}，那次反向傳播把它的梯度（{delivered}）加了上去：.grad 現在是 {value}。PyTorch 會累加到 .grad；如果只想要這次的梯度，請先設定 {name}.grad = None。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name}'s .grad ({value}) is the sum over {count} backward passes (passes {passes}): PyTorch adds each pass's gradient to .grad. Call optimizer.zero_grad() (or set .grad = None) between passes if that is not what you want.</source>
      <translation>{name} 的 .grad（{value}）是 {count} 次反向傳播（第 {passes} 次）的總和：PyTorch 會把每次的梯度加到 .grad。如果這不是你要的，請在兩次之間呼叫 optimizer.zero_grad()（或設定 .grad = None）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} was reached by {count} passes, but .grad was reset in between (zero_grad or .grad = None), so it ({value}) holds only pass(es) {passes}.</source>
      <translation>{name} 被 {count} 次反向傳播到達，但 .grad 在中間被重設了（zero_grad 或 .grad = None），所以它（{value}）只包含第 {passes} 次。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} got gradients from passes {passes}, but .grad was reset after the last one (zero_grad or .grad = None): it is {value} now.</source>
      <translation>{name} 從第 {passes} 次反向傳播得到了梯度，但 .grad 在最後一次之後被重設了（zero_grad 或 .grad = None）：它現在是 {value}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>During {pass_} this process delivered {delivered} to {name}, and {reducer} then wrote .grad: its reducer (C++ hooks on every parameter's gradient accumulator, which Python never sees) averages .grad over the processes, so .grad is {value}, not this process's gradient.</source>
      <translation>在{pass_}中，這個行程把 {delivered} 送給了 {name}，接著 {reducer} 寫入了 .grad：它的 reducer（掛在每個參數梯度累加器上的 C++ 鉤子，Python 看不到）會在各行程間平均 .grad，所以 .grad 是 {value}，而不是這個行程自己的梯度。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the post-accumulate hook {hook}</source>
      <translation>累加後鉤子 {hook}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>a hook</source>
      <translation>一個鉤子</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{pass_} delivered {delivered} to {name}, and {who} then took it (it set .grad to None, as an optimizer step inside backward does), so .grad is {value}.</source>
      <translation>{pass_}把 {delivered} 送給了 {name}，接著{who}把它取走了（把 .grad 設為 None，就像在 backward 中執行優化器步驟那樣），所以 .grad 是 {value}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>During {pass_} {name}'s .grad went from {before} to {after}, which is not before + the delivered {delivered}: a hook changed it (a post-accumulate hook, or an inner backward). It is {value} at the end.</source>
      <translation>在{pass_}中，{name} 的 .grad 從 {before} 變成 {after}，這不等於之前的值加上送達的 {delivered}：有鉤子改變了它（累加後鉤子，或內部的 backward）。最後它是 {value}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name}'s .grad was changed by your code between passes (before pass {number} it was {before}, not what the previous pass left: clipped, scaled or assigned), so it is not a plain sum of gradients: {value} at the end.</source>
      <translation>{name} 的 .grad 在兩次反向傳播之間被你的程式碼改變了（在第 {number} 次之前它是 {before}，而不是上一次留下的值：被裁剪、縮放或指定），所以它不是單純的梯度總和：最後是 {value}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{pass_} left {name}.grad = {after}; your code then changed it (clipped, scaled or assigned) to {value}.</source>
      <translation>{pass_}留下了 {name}.grad = {after}；接著你的程式碼把它改成了 {value}（裁剪、縮放或指定）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> Pass {passes} raised ({error}) after delivering this gradient: what arrived before the error stays in .grad.</source>
      <translation>第 {passes} 次反向傳播在送達這個梯度之後發生例外（{error}）：錯誤之前送達的部分留在 .grad 中。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> {pass_} raised before reaching it ({error}), so that pass added nothing.</source>
      <translation>{pass_}在到達它之前就發生例外（{error}），所以那次沒有加上任何東西。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{pass_} was asked for {name}'s gradient and returned None (allow_unused=True): {name} is not on the graph of its outputs, so no gradient exists for it; loss.backward() would not give it one either. {name}.grad is {grad}.</source>
      <translation>{pass_}被要求計算 {name} 的梯度，但回傳了 None（allow_unused=True）：{name} 不在其輸出的計算圖上，所以它沒有梯度；用 loss.backward() 也不會得到。{name}.grad 是 {grad}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{pass_} returned {name}'s gradient ({value}) instead of adding it to .grad: torch.autograd.grad never touches .grad, so {name}.grad is {grad}. Use loss.backward() if you want it accumulated.</source>
      <translation>{pass_}回傳了 {name} 的梯度（{value}），而不是加到 .grad：torch.autograd.grad 從不碰 .grad，所以 {name}.grad 是 {grad}。如果要累加，請用 loss.backward()。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>other tensors</source>
      <translation>其他張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is on the graph of {pass_}, but that pass was limited to inputs=[{only}], so autograd computed no gradient for {name}; its .grad is {grad}.</source>
      <translation>{name} 在{pass_}的計算圖上，但那次被限制為 inputs=[{only}]，所以 autograd 沒有為 {name} 計算梯度；它的 .grad 是 {grad}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is on the graph of {pass_}, but that pass raised before reaching it ({error}), so its .grad is {grad}.</source>
      <translation>{name} 在{pass_}的計算圖上，但那次在到達它之前就發生例外（{error}），所以它的 .grad 是 {grad}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>No backward pass delivered a gradient to {name}, yet its .grad is {grad}: your code assigned it (for example {name}.grad = ...).</source>
      <translation>沒有任何反向傳播把梯度送給 {name}，但它的 .grad 卻是 {grad}：是你的程式碼指定的（例如 {name}.grad = ...）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is on the graph of {pass_}, but no gradient arrived (the ops between the loss and {name} sent none: a non-differentiable step, or a hook that returned a zero/None gradient upstream), so its .grad stayed None.</source>
      <translation>{name} 在{pass_}的計算圖上，但沒有梯度到達（損失與 {name} 之間的運算沒有送出梯度：不可微分的步驟，或上游有鉤子回傳了零／None 梯度），所以它的 .grad 仍是 None。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>; this one was made{where}</source>
      <translation>；這一個建立於{where}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} requires grad, but it is not on the backward path of any pass (the passes started from {roots}), so its .grad stayed None. The passes did reach {twin}, the leaf at the same place in another object (same attribute path, shape and dtype): the loss was computed with that object, not with this one{made}.</source>
      <translation>{name} 需要梯度，但它不在任何反向傳播的路徑上（反向傳播從 {roots} 開始），所以它的 .grad 仍是 None。反向傳播確實到達了 {twin}，也就是另一個物件中同一位置的葉節點（相同的屬性路徑、形狀與 dtype）：損失是用那個物件算出來的，而不是這一個{made}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} requires grad, but it is not on the backward path of any pass (the passes started from {roots}), so its .grad stayed None. Check that it is used to compute the loss.</source>
      <translation>{name} 需要梯度，但它不在任何反向傳播的路徑上（反向傳播從 {roots} 開始），所以它的 .grad 仍是 None。請確認它有被用來計算損失。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>with grad mode off</source>
      <translation>在梯度模式關閉時</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>under {code}</source>
      <translation>在 {code} 之下</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>`{code}` at {where} made this object, which reached {first} as the object itself (returning, storing or assigning a tensor never copies it)</source>
      <translation>{where}的 `{code}` 建立了這個物件，{first} 拿到的就是這個物件本身（回傳、存放或指派張量都不會複製它）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the loop at {where} (`{code}`) binds {name} to each object it goes over, the objects themselves (Python never copies a tensor to hand it to a name)</source>
      <translation>{where}的迴圈（`{code}`）把 {name} 綁定到它走過的每個物件，也就是物件本身（Python 把張量交給名稱時從不複製）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>`{code}` at {where} binds it to what an in-place method returned, which is its input object itself</source>
      <translation>{where}的 `{code}` 把它綁定到原地方法的回傳值，也就是輸入物件本身</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>`{code}` at {where} binds {name} to the object stored there (reading an attribute, item or name hands over the object itself, never a copy)</source>
      <translation>{where}的 `{code}` 把 {name} 綁定到存放在那裡的物件（讀取屬性、項目或名稱交出的是物件本身，從不是複本）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>`{code}` at {where} binds {name} to an existing object</source>
      <translation>{where}的 `{code}` 把 {name} 綁定到一個既有的物件</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>`{code}` at {where} binds {name} to an object that already had a name (an op that returns its input, such as an in-place op or a custom Function whose forward calls ctx.mark_dirty, or another name)</source>
      <translation>{where}的 `{code}` 把 {name} 綁定到一個已經有名稱的物件（會回傳其輸入的運算，例如原地運算或 forward 呼叫 ctx.mark_dirty 的自訂 Function，或另一個名稱）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>Python names never copy a tensor: both names lead to one object (bound where gradexplorer could not read the statement)</source>
      <translation>Python 的名稱從不複製張量：兩個名稱指向同一個物件（綁定的位置 gradexplorer 讀不到該陳述式）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is an intermediate result, but retain_grad() was called on it{at}, so its .grad is kept: {grad}.</source>
      <translation>{name} 是中間結果，但它被呼叫了 retain_grad(){at}，所以它的 .grad 被保留：{grad}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>an {dtype} tensor</source>
      <translation>一個 {dtype} 張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>a {dtype} tensor</source>
      <translation>一個 {dtype} 張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is {tensor}: only floating point and complex tensors can require grad, so autograd never tracks it (use .float() if you need gradients).</source>
      <translation>{name} 是{tensor}：只有浮點數與複數張量可以需要梯度，所以 autograd 從不追蹤它（需要梯度時請用 .float()）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} was made under torch.inference_mode(){where}: an inference tensor can never require grad nor be saved for backward; use torch.no_grad() if you need it in autograd later.</source>
      <translation>{name} 是在 torch.inference_mode() 之下產生的{where}：推論張量永遠不能需要梯度，也不能為反向傳播保存；如果之後要在 autograd 中使用，請改用 torch.no_grad()。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> from {source}</source>
      <translation>（來自 {source}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} was detached{source}{where}: it shares memory with the original but is cut from the graph, so no gradient flows back through it.</source>
      <translation>{name} 經過 detach{source}{where}：它與原張量共用記憶體，但已從計算圖切斷，所以沒有梯度會經由它流回去。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> of {source}</source>
      <translation>（{source} 的）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is the .data{source}{where}: like detach() it is cut from the graph, and autograd does not even notice in-place changes made through it (wrong gradients without an error); prefer .detach().</source>
      <translation>{name} 是 .data{source}{where}：它和 detach() 一樣已從計算圖切斷，而且 autograd 甚至察覺不到經由它所做的原地修改（會得到錯誤的梯度卻不報錯）；請改用 .detach()。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>its base</source>
      <translation>它的基底張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a view of {base} made {context}{where}: it shows requires_grad={requires_grad} but has no grad_fn, so no gradient flows back to {base} through it, and changing it in place with grad mode on raises an error (PyTorch issue 11390).</source>
      <translation>{name} 是 {base} 的視圖，產生於{context}{where}：它顯示 requires_grad={requires_grad}，卻沒有 grad_fn，所以沒有梯度會經由它流回 {base}；而在梯度模式開啟時對它做原地修改會引發錯誤（PyTorch issue 11390）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>an op</source>
      <translation>一個運算</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> Its .grad still holds what earlier passes left: {grad}.</source>
      <translation>它的 .grad 仍保留先前反向傳播留下的值：{grad}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} stopped requiring grad when your code turned it off{at} (`{code}`): autograd no longer tracks it, and later passes give it nothing.{kept}</source>
      <translation>你的程式碼關閉了 {name} 的梯度需求{at}（`{code}`），從此它不再需要梯度：autograd 不再追蹤它，之後的反向傳播也不會給它任何東西。{kept}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is the gradient torch.autograd.grad returned{at}. It has no grad_fn: without create_graph=True (or when a backward on its path is not differentiable, such as a custom Function marked @once_differentiable) autograd builds no graph for it, so it is a constant.{tail}</source>
      <translation>{name} 是 torch.autograd.grad 回傳的梯度{at}。它沒有 grad_fn：沒有 create_graph=True 時（或其路徑上的 backward 不可微分，例如標了 @once_differentiable 的自訂 Function），autograd 不會為它建立計算圖，所以它是常數。{tail}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a gradient that autograd handed to your hook{at}, which kept it: a gradient is a plain result and needs no gradient of its own.</source>
      <translation>{name} 是 autograd 交給你的鉤子的梯度{at}，鉤子把它留了下來：梯度只是普通的結果，本身不需要梯度。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a module buffer (register_buffer, e.g. BatchNorm's running statistics): the module updates it itself, outside autograd, and it needs no gradient.</source>
      <translation>{name} 是模組的緩衝區（register_buffer，例如 BatchNorm 的 running 統計值）：模組會在 autograd 之外自行更新它，它不需要梯度。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> Calling {name}.backward() fails with "does not require grad", as it did{at}.</source>
      <translation>呼叫 {name}.backward() 會以 "does not require grad" 失敗，正如先前{at}的情況。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> Calling {name}.backward() fails with "does not require grad".</source>
      <translation>呼叫 {name}.backward() 會以 "does not require grad" 失敗。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a new tensor made by {made} {context}{place}: grad mode off only affects tensors created by operations while it is off, and this one was, so it has no grad_fn and requires_grad=False.{tail}</source>
      <translation>{name} 是由 {made} {context}{place}產生的新張量：關閉梯度模式只影響在關閉期間由運算建立的張量，而這個張量正是如此，所以它沒有 grad_fn，且 requires_grad=False。{tail}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> (made by {made}{at})</source>
      <translation>（由 {made}{at}產生）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} does not require grad{where}: autograd treats it as a constant, which is right for input data, targets and statistics. Only if you want its gradient, create it with requires_grad=True or call {name}.requires_grad_().</source>
      <translation>{name} 不需要梯度{where}：autograd 把它當作常數，這對輸入資料、目標值與統計值來說是正確的。只有在你想要它的梯度時，才用 requires_grad=True 建立它，或呼叫 {name}.requires_grad_()。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> registered{at}</source>
      <translation>（註冊{at}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> during {pass_}</source>
      <translation>，在{pass_}中</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>The hook {hook}{where} on {name} raised{during} ({error}): the pass stopped there, so nothing below {name} got this pass's gradient.</source>
      <translation>{name} 上的鉤子 {hook}{where}發生例外{during}（{error}）：反向傳播停在那裡，所以 {name} 下游的節點都沒有得到這次的梯度。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>changed in place</source>
      <translation>原地修改了</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>replaced</source>
      <translation>取代了</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> Over all passes: {reason}</source>
      <translation>綜觀所有反向傳播：{reason}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>The hook {hook}{where} {how} the gradient flowing to {name} in pass {number}: {before} before, {after} after.{then}</source>
      <translation>鉤子 {hook}{where}在第 {number} 次反向傳播中{how}流向 {name} 的梯度：之前是 {before}，之後是 {after}。{then}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is a view of {base} (it shares its memory); gradients reach {base} through its grad_fn {grad_fn}.</source>
      <translation>{name} 是 {base} 的視圖（共用記憶體）；梯度經由它的 grad_fn {grad_fn} 到達 {base}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>the last pass</source>
      <translation>最後一次反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>pass {number}, the last one that reached it</source>
      <translation>第 {number} 次反向傳播（最後一次到達它的）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> ({pass_})</source>
      <translation>（{pass_}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> Its gradient in {which}{where} was {grad} (on its node).</source>
      <translation>它在{which}{where}中的梯度是 {grad}（在它的節點上）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> That pass raised while running its node {op}, after the gradient had arrived ({error}): nothing below it got this pass's gradient.</source>
      <translation>那次反向傳播在執行它的節點 {op} 時發生例外，當時梯度已經到達（{error}）：它下游的節點都沒有得到這次的梯度。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> No backward pass reached it.</source>
      <translation>沒有任何反向傳播到達它。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source> No backward pass ran.</source>
      <translation>沒有執行任何反向傳播。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>made{where}; its grad_fn is now {op}</source>
      <translation>產生{where}；它的 grad_fn 現在是 {op}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{name} is an intermediate result ({made}): PyTorch keeps no .grad for it.{seen} Use {name}.retain_grad() or {name}.register_hook(...) to keep it in your own code.</source>
      <translation>{name} 是中間結果（{made}）：PyTorch 不會為它保留 .grad。{seen}要在你自己的程式碼中保留它，請用 {name}.retain_grad() 或 {name}.register_hook(...)。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{other} gets no gradient either, exactly like {first}</source>
      <translation>{other} 也得不到梯度，和 {first} 完全一樣</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{other} still gets a gradient, exactly like {first}</source>
      <translation>{other} 仍然得到梯度，和 {first} 完全一樣</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{other} shares what is said of {first} above</source>
      <translation>{other} 的情況與上面對 {first} 的說明相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>`{other} = {first}` at line {line} only adds a name (Python never copies a tensor on assignment)</source>
      <translation>第 {line} 行的 `{other} = {first}` 只是多加一個名稱（Python 指定時從不複製張量）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>; {code} only affects tensors created by operations inside it</source>
      <translation>；{code} 只影響在其中由運算建立的張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>it is the same object stored in another place (`{other}`)</source>
      <translation>它是存放在另一個地方的同一個物件（`{other}`）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/explain.py" />
      <source>{other} is the same tensor object as {first}: {why}, so {gets}.</source>
      <translation>{other} 與 {first} 是同一個張量物件：{why}，所以 {gets}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/gradient_flow.py" />
      <source>vanishing: {name} in pass {number}: gradient norm {norm} (median of the pass {median})</source>
      <translation>消失：{name} 在第 {number} 次反向傳播：梯度範數 {norm}（該次中位數 {median}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/gradient_flow.py" />
      <source>exploding: {name} in pass {number}: gradient norm {norm} (median of the pass {median})</source>
      <translation>爆炸：{name} 在第 {number} 次反向傳播：梯度範數 {norm}（該次中位數 {median}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` has {count} hook(s) that run on every call: {hooks}. A forward hook can replace the output; a backward hook can replace gradients (its nodes show as BackwardHookFunctionBackward in the graph).</source>
      <translation>`{path}` 有 {count} 個每次呼叫都會執行的鉤子：{hooks}。前向鉤子可以取代輸出；反向鉤子可以取代梯度（它的節點在圖中顯示為 BackwardHookFunctionBackward）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` is a non-persistent buffer: it moves with the module but state_dict() does not save it.</source>
      <translation>`{path}` 是非持久的緩衝區：它會隨模組移動，但 state_dict() 不會儲存它。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>pass persistent=True to register_buffer if it must be saved</source>
      <translation>如果必須儲存它，請在 register_buffer 傳入 persistent=True</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` requires grad but received no gradient in any backward pass: it is not on the path from the loss.</source>
      <translation>`{path}` 需要梯度，但在任何一次反向傳播中都沒有收到梯度：它不在從損失出發的路徑上。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>check that forward() uses it; freeze it with requires_grad_(False) if it should not train</source>
      <translation>請確認 forward() 有用到它；如果它不該被訓練，請用 requires_grad_(False) 凍結它</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` has parameters/buffers on several devices: {devices}; e.g. {examples}.</source>
      <translation>`{path}` 的參數／緩衝區分散在多個裝置上：{devices}；例如 {examples}。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>move the whole module at once: `{path}.to(device)`</source>
      <translation>請一次移動整個模組：`{path}.to(device)`</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` is a plain tensor attribute: it stayed on {device} when the module moved to {main} (module.to() moves only parameters and buffers), and it is not in state_dict().</source>
      <translation>`{path}` 是一般的張量屬性：模組移到 {main} 時它仍留在 {device}（module.to() 只移動參數與緩衝區），而且它不在 state_dict() 中。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` is a plain tensor attribute: it will not follow module.to() and is not in state_dict().</source>
      <translation>`{path}` 是一般的張量屬性：它不會跟著 module.to() 移動，也不在 state_dict() 中。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>use `self.register_buffer('{attr}', ...)` in {type_name}.__init__</source>
      <translation>請在 {type_name}.__init__ 中使用 `self.register_buffer('{attr}', ...)`</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>if it should be trained, use `self.{attr} = nn.Parameter(...)`; else {fix}</source>
      <translation>如果它應該被訓練，請用 `self.{attr} = nn.Parameter(...)`；否則{fix}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` is wrapped by {label}: its reducer registers C++ hooks on every parameter's gradient accumulator (Python never sees them) that average .grad over the processes during backward, so .grad after a pass is that mean, not what this process delivered (the inspector shows both).</source>
      <translation>`{path}` 被 {label} 包裝：它的 reducer 在每個參數的梯度累加器上註冊了 C++ 鉤子（Python 看不到），在反向傳播期間對各行程的 .grad 取平均，所以一次反向傳播後的 .grad 是那個平均值，而不是這個行程送達的梯度（檢視器會同時顯示兩者）。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>compare `delivered` with .grad per pass; run with one process to see this process's gradient alone</source>
      <translation>請逐次比較 `delivered` 與 .grad；用單一行程執行即可只看到這個行程的梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>fix the error that stopped the pass (the Error line); the parameter is on the path from the loss</source>
      <translation>請修正讓反向傳播停下的錯誤（錯誤那一行）；這個參數在從損失出發的路徑上</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source> by `{code}` at {place}</source>
      <translation>（由{place}的 `{code}`）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>`{path}` is frozen{how}: its parameter(s) {names} have requires_grad=False, so no gradient reaches them and the optimizer leaves them as they are.</source>
      <translation>`{path}` 已被凍結{how}：它的參數 {names} 的 requires_grad=False，所以沒有梯度會到達它們，優化器也不會改動它們。</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>if it should train, call requires_grad_(True) on it (and give its parameters to the optimizer)</source>
      <translation>如果它應該被訓練，請對它呼叫 requires_grad_(True)（並把它的參數交給優化器）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>scalar</source>
      <translation>純量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>parameter</source>
      <translation>參數</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>buffer</source>
      <translation>緩衝區</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>plain</source>
      <translation>一般屬性</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>requires grad</source>
      <translation>需要梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>frozen</source>
      <translation>已凍結</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>has .grad</source>
      <translation>有 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>no .grad</source>
      <translation>沒有 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>persistent</source>
      <translation>持久</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>not in state_dict</source>
      <translation>不在 state_dict 中</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>not registered: does not follow .to(), not in state_dict</source>
      <translation>未註冊：不會跟著 .to() 移動，也不在 state_dict 中</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/modules.py" />
      <source>  Fix: {fix}</source>
      <translation>  修正方法：{fix}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/query.py" />
      <source>All nodes</source>
      <translation>所有節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/query.py" />
      <source>Path from the selected node to the root</source>
      <translation>從選取節點到根的路徑</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/query.py" />
      <source>Requires grad</source>
      <translation>需要梯度</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/query.py" />
      <source>Has NaN/Inf</source>
      <translation>含有 NaN/Inf</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/query.py" />
      <source>No gradient reached it</source>
      <translation>沒有梯度到達</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>nothing (None)</source>
      <translation>沒有（None）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>nothing</source>
      <translation>沒有</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>output {index}: {value}</source>
      <translation>輸出 {index}：{value}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>Step {number} of {count} · {node}</source>
      <translation>第 {number} 步（共 {count} 步）· {node}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>Run on the thread {thread} (the pass was started there, not on the program's own)</source>
      <translation>在執行緒 {thread} 上執行（反向傳播是在那裡啟動的，不是在程式本身的執行緒上）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>The engine ran this pass on {count} threads: the one that started it and {threads} (each device has an engine thread of its own)</source>
      <translation>引擎在 {count} 個執行緒上執行這次反向傳播：啟動它的那個，以及 {threads}（每個裝置都有自己的引擎執行緒）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>This node ran on the engine thread {thread}, not on the one that started the pass</source>
      <translation>這個節點是在引擎執行緒 {thread} 上執行的，而不是在啟動這次反向傳播的執行緒上</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>Receives: {values}</source>
      <translation>收到：{values}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>next_functions[{slot}] is None (that input needs no gradient): nothing sent</source>
      <translation>next_functions[{slot}] 是 None（那個輸入不需要梯度）：沒有送出任何東西</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>Sends next_functions[{slot}] → {node}: {value}</source>
      <translation>送往 next_functions[{slot}] → {node}：{value}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>The pass raised here: {error}</source>
      <translation>反向傳播在這裡發生例外：{error}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>tensor hook</source>
      <translation>張量鉤子</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>pre-hook</source>
      <translation>前置鉤子</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>post hook</source>
      <translation>後置鉤子</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>post-accumulate hook</source>
      <translation>累加後鉤子</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>raised {error}</source>
      <translation>發生例外 {error}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>left it unchanged</source>
      <translation>沒有改變它</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>changed it to {values}</source>
      <translation>把它改成 {values}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>Hook before it ran: {kind} {hook} got {values}, {result}</source>
      <translation>執行前的鉤子：{kind} {hook} 收到 {values}，{result}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/replay.py" />
      <source>Hook after it ran: {kind} {hook} got {values}, {result}</source>
      <translation>執行後的鉤子：{kind} {hook} 收到 {values}，{result}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>a {shape} tensor</source>
      <translation>一個 {shape} 張量</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>values not kept</source>
      <translation>數值未保留</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>{what}: {got} against {expected}</source>
      <translation>{what}：{got}，預期 {expected}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>delivered only as the change in .grad (an inner backward)</source>
      <translation>只以 .grad 的變化送達（內部的 backward）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>{reducer} wrote .grad (the mean over the processes)</source>
      <translation>{reducer} 寫入了 .grad（各行程的平均）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>a hook changed .grad during the pass</source>
      <translation>反向傳播期間有鉤子改變了 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>.grad after = before + delivered</source>
      <translation>之後的 .grad = 之前 + 送達</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>.grad after the pass against before + delivered</source>
      <translation>反向傳播後的 .grad 與「之前 + 送達」相比</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>.grad = sum of passes {passes}</source>
      <translation>.grad = 第 {passes} 次反向傳播的總和</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>.grad against the sum of passes {passes}</source>
      <translation>.grad 與第 {passes} 次反向傳播的總和相比</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>a hook or a capped value in between</source>
      <translation>中間有鉤子或被截斷的值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>shapes differ (input metadata)</source>
      <translation>形狀不同（輸入的中繼資料）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>gradient of output {nr} = sum of what its consumers sent</source>
      <translation>輸出 {nr} 的梯度 = 其使用者節點送來的總和</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/analysis/verify.py" />
      <source>gradient received for output {nr} against what its consumers sent</source>
      <translation>輸出 {nr} 收到的梯度與其使用者節點送來的值相比</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>this PyTorch build ({version}) has no CUDA support</source>
      <translation>這個 PyTorch 版本（{version}）不支援 CUDA</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>no CUDA GPU is visible (driver missing or CUDA_VISIBLE_DEVICES hides them)</source>
      <translation>看不到任何 CUDA GPU（缺少驅動程式，或被 CUDA_VISIBLE_DEVICES 隱藏）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>MPS exists only on Apple-silicon Macs with an MPS-enabled PyTorch</source>
      <translation>MPS 只存在於搭載 Apple 晶片、且 PyTorch 支援 MPS 的 Mac 上</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>MPS is built in but not usable on this machine (needs macOS 12.3+ on Apple silicon)</source>
      <translation>MPS 已內建，但在這台電腦上無法使用（需要 Apple 晶片上的 macOS 12.3 以上）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>{spec} is not a device name ({error}). Devices present: {present}</source>
      <translation>{spec} 不是裝置名稱（{error}）。現有裝置：{present}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>{spec} is not available: {why}. Devices present: {present}</source>
      <translation>{spec} 無法使用：{why}。現有裝置：{present}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>{spec} is not available: this machine has {count} CUDA device(s). Devices present: {present}</source>
      <translation>{spec} 無法使用：這台電腦只有 {count} 個 CUDA 裝置。現有裝置：{present}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/devices.py" />
      <source>{spec} is not a device gradexplorer runs code on. Devices present: {present}</source>
      <translation>{spec} 不是 gradexplorer 能執行程式碼的裝置。現有裝置：{present}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code left the thread {thread} running; Stop or closing the window interrupts it</source>
      <translation>你的程式碼讓執行緒 {thread} 繼續執行；按「停止」或關閉視窗會中斷它</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code called {call}; restored for the next run</source>
      <translation>你的程式碼呼叫了 {call}；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code turned gradient recording off (torch.set_grad_enabled(False) or torch.no_grad().__enter__() at top level); the next run starts with it on</source>
      <translation>你的程式碼關閉了梯度記錄（在最上層呼叫 torch.set_grad_enabled(False) 或 torch.no_grad().__enter__()）；下一次執行會以開啟狀態開始</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code left inference mode on; the next run starts with it off</source>
      <translation>你的程式碼讓推論模式保持開啟；下一次執行會以關閉狀態開始</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code called torch.set_default_device({device}); the next run starts on {home} again</source>
      <translation>你的程式碼呼叫了 torch.set_default_device({device})；下一次執行會再從 {home} 開始</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code called os.chdir() into a folder that is gone; restored for the next run</source>
      <translation>你的程式碼用 os.chdir() 進入了一個已不存在的資料夾；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>the working directory {folder} could not be restored: {why}</source>
      <translation>無法還原工作目錄 {folder}：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code changed sys.argv; restored for the next run</source>
      <translation>你的程式碼改變了 sys.argv；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source> (added {paths})</source>
      <translation>（加入了 {paths}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code changed sys.path{what}; restored for the next run</source>
      <translation>你的程式碼改變了 sys.path{what}；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code replaced sys.{stream}; restored for the next run</source>
      <translation>你的程式碼取代了 sys.{stream}；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code called warnings.{name} (line {line}); the warnings filters are restored for the next run</source>
      <translation>你的程式碼呼叫了 warnings.{name}（第 {line} 行）；已為下一次執行還原警告篩選器</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code replaced warnings.showwarning; restored for the next run</source>
      <translation>你的程式碼取代了 warnings.showwarning；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code replaced {owner}.{name}; the original is back for the next run</source>
      <translation>你的程式碼取代了 {owner}.{name}；下一次執行會換回原本的</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code called gc.disable(); the garbage collector is on again for the next run</source>
      <translation>你的程式碼呼叫了 gc.disable()；下一次執行時垃圾回收器會再次開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code replaced {owner}.{name}; restored for the next run</source>
      <translation>你的程式碼取代了 {owner}.{name}；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code changed os.environ ({keys}); restored for the next run</source>
      <translation>你的程式碼改變了 os.environ（{keys}）；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/capture/process_state.py" />
      <source>your code replaced or removed builtins ({names}); restored for the next run</source>
      <translation>你的程式碼取代或移除了內建名稱（{names}）；已為下一次執行還原</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>nodes: {both} in both ({same} same, {changed} changed), {added} only in B (added), {removed} only in A (removed)</source>
      <translation>節點：{both} 個兩次都有（{same} 個相同，{changed} 個有變），{added} 個只在 B（新增），{removed} 個只在 A（移除）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>  pass {number}: {changes}</source>
      <translation>  第 {number} 次：{changes}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>passes that differ</source>
      <translation>不同的反向傳播</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>why a name gets a gradient: reason codes that changed</source>
      <translation>名稱為何得到梯度：改變了的原因代碼</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>how far B drifts from A (nodes in both runs)</source>
      <translation>B 與 A 相差多少（兩次都有的節點）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>nodes that differ</source>
      <translation>不同的節點</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>module state whose placement changed</source>
      <translation>位置改變了的模組狀態</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>module audit warnings in one run only</source>
      <translation>只出現在其中一次執行的模組檢查警告</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>  only in A: {warning}</source>
      <translation>  只在 A：{warning}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>  only in B: {warning}</source>
      <translation>  只在 B：{warning}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>same</source>
      <translation>相同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>in one run only</source>
      <translation>只在其中一次執行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>shapes differ</source>
      <translation>形狀不同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>not readable</source>
      <translation>無法讀取</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>max |a-b| {abs}, rel {rel}</source>
      <translation>最大 |a-b| {abs}，相對 {rel}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>; NaN/Inf differ at {count}</source>
      <translation>；NaN/Inf 在 {count} 處不同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>differs (statistics)</source>
      <translation>不同（依統計值）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>same (statistics)</source>
      <translation>相同（依統計值）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>op</source>
      <translation>運算</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>names</source>
      <translation>名稱</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>shape</source>
      <translation>形狀</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>device</source>
      <translation>裝置</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>grad mode on</source>
      <translation>梯度模式開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>differs</source>
      <translation>不同</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>value at the end</source>
      <translation>執行結束時的值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>forward value</source>
      <translation>前向值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>gradient, pass {number}</source>
      <translation>梯度，第 {number} 次</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>.grad at the end</source>
      <translation>執行結束時的 .grad</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>why `{name}`</source>
      <translation>為何 `{name}`</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/diff_report.py" />
      <source>changed</source>
      <translation>有變</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>this session was made by gradexplorer {made_by} or newer (session format {version}); this is gradexplorer {this}, which reads format {reads}: please upgrade gradexplorer</source>
      <translation>這個工作階段是由 gradexplorer {made_by} 或更新版本建立的（工作階段格式 {version}）；這是 gradexplorer {this}，只能讀取格式 {reads}：請升級 gradexplorer</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>this file has an unknown {format} version ({version})</source>
      <translation>這個檔案的 {format} 版本不明（{version}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>this is not a gradexplorer session (no 'format': 'gradexplorer.session' in it)</source>
      <translation>這不是 gradexplorer 工作階段（其中沒有 'format': 'gradexplorer.session'）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>{name} is not a session file (neither a session container nor UTF-8 text)</source>
      <translation>{name} 不是工作階段檔案（既不是工作階段容器，也不是 UTF-8 文字）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>{name} is a zip file but not a gradexplorer session (no {member} in it)</source>
      <translation>{name} 是 zip 檔，但不是 gradexplorer 工作階段（其中沒有 {member}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>{name} unpacks to {size} MiB; sessions larger than {most} MiB are not opened</source>
      <translation>{name} 解壓後有 {size} MiB；超過 {most} MiB 的工作階段不會開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>not a session file: invalid JSON at line {line}, column {column} ({why}); the file may be truncated or damaged</source>
      <translation>不是工作階段檔案：第 {line} 行第 {column} 欄的 JSON 無效（{why}）；檔案可能被截斷或損毀</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>this is not a gradexplorer session (the JSON is not an object)</source>
      <translation>這不是 gradexplorer 工作階段（JSON 不是物件）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>cannot open {name}: {why}</source>
      <translation>無法開啟 {name}：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>cannot open {name}: it is {problem}, not a session file</source>
      <translation>無法開啟 {name}：它是{problem}，不是工作階段檔案</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>{name} is {size} MiB; sessions larger than {most} MiB are not opened</source>
      <translation>{name} 有 {size} MiB；超過 {most} MiB 的工作階段不會開啟</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/session.py" />
      <source>cannot read {name}: {why}</source>
      <translation>無法讀取 {name}：{why}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/validate.py" />
      <source>not a valid session: {where} should be {expected}</source>
      <translation>不是有效的工作階段：{where} 應該是 {expected}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/io/validate.py" />
      <source>not a valid session: {where} lacks '{name}'</source>
      <translation>不是有效的工作階段：{where} 缺少 '{name}'</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/isolated/engine.py" />
      <source> at line {line}</source>
      <translation>（第 {line} 行）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/isolated/engine.py" />
      <source>the program called os._exit({code}){where}; its process ended there (as far as it got: its output is kept, the graph is not)</source>
      <translation>程式呼叫了 os._exit({code}){where}；它的行程就此結束（保留了到那時為止的輸出，但沒有計算圖）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/isolated/engine.py" />
      <source> (killed: most likely out of memory, by the system)</source>
      <translation>（被系統終止：很可能是記憶體不足）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/isolated/engine.py" />
      <source>the program's process died with {signal}{where}{why}; as far as it got: its output is kept, the graph is not</source>
      <translation>程式的行程因 {signal}{where}{why}而終止；保留了到那時為止的輸出，但沒有計算圖</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/isolated/engine.py" />
      <source>the program's process exited with code {code} before sending its capture</source>
      <translation>程式的行程在送出擷取結果之前就以代碼 {code} 結束</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/isolated/engine.py" />
      <source>stopped by the user (the program's process was killed)</source>
      <translation>已由使用者停止（程式的行程已被終止）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/pipeline/steps.py" />
      <source>the program's variables hold more than {most} values (tensors, modules, containers and their items): names were looked up in the first {most} only, so some tensors may show their op instead of their name</source>
      <translation>程式的變數包含超過 {most} 個值（張量、模組、容器及其項目）：只在前 {most} 個中查找名稱，所以有些張量可能顯示其運算而不是名稱</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/errors.py" />
      <source>{exc_type}{where}: {message}</source>
      <translation>{exc_type}{where}：{message}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/errors.py" />
      <source>{exc_type}{where}</source>
      <translation>{exc_type}{where}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>{count} elements is over the {cap}-element cap: summary only</source>
      <translation>{count} 個元素，超過 {cap} 個元素的上限：只保留摘要</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>meta tensor: it has a shape but no values</source>
      <translation>meta 張量：只有形狀，沒有數值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>{layout} tensor: values are not captured</source>
      <translation>{layout} 張量：數值沒有被擷取</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>{layout} tensor: values not readable ({error})</source>
      <translation>{layout} 張量：數值無法讀取（{error}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>{layout} tensor, shown dense</source>
      <translation>{layout} 張量，以稠密形式顯示</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>quantized tensor: values not readable ({error})</source>
      <translation>量化張量：數值無法讀取（{error}）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>quantized tensor ({dtype}): values shown dequantized</source>
      <translation>量化張量（{dtype}）：顯示的是反量化後的數值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>values could not be read: {error}</source>
      <translation>數值無法讀取：{error}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>changed in place after the op (by code gradexplorer could not see): this is the later value</source>
      <translation>運算之後被原地修改過（由 gradexplorer 看不到的程式碼）：這是後來的數值</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>value at the end of the run (the op that made it was not recorded)</source>
      <translation>執行結束時的數值（建立它的運算沒有被記錄）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>delivered by a backward that a reentrant torch.utils.checkpoint ran inside this pass (the change in .grad)</source>
      <translation>由這次反向傳播中可重入的 torch.utils.checkpoint 執行的反向傳播送達（.grad 的變化量）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>delivered by a backward that a custom Function ran inside this pass (the change in .grad)</source>
      <translation>由這次反向傳播中自訂 Function 執行的反向傳播送達（.grad 的變化量）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>the sum of the {count} gradients sent here: they were over the value cap, kept as statistics only, so their sum is not known</source>
      <translation>送到這裡的 {count} 個梯度的總和：它們超過數值上限，只保留了統計量，所以無法得知總和</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>values not saved: the file's value budget was used</source>
      <translation>數值沒有儲存：檔案的數值額度已用完</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>values not saved: the file's {budget}-value budget was used</source>
      <translation>數值沒有儲存：檔案的 {budget} 個數值額度已用完</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>values of dtype {dtype} are not kept in files (statistics only)</source>
      <translation>dtype 為 {dtype} 的數值不會存進檔案（只保留統計量）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>statistics not received: {error}</source>
      <translation>沒有收到統計量：{error}</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/notes.py" />
      <source>statistics not received: the program's process ended before sending them</source>
      <translation>沒有收到統計量：程式的行程在送出之前就結束了</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/phrases.py" />
      <source>line {line}</source>
      <translation>第 {line} 行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/phrases.py" />
      <source>line {line} of {file}</source>
      <translation>{file} 的第 {line} 行</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/records/phrases.py" />
      <source>{name} (in {scope})</source>
      <translation>{name}（在 {scope} 中）</translation>
    </message>
    <message>
      <location filename="../../gradexplorer/core/view/picture.py" />
      <source>Drawing the graph was stopped; the capture is in the panes and can be saved.</source>
      <translation>已停止繪製圖形；擷取結果在各面板中，可以儲存。</translation>
    </message>
  </context>
</TS>
