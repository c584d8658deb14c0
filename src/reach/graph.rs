//! Graphs for Larsen–McAllister's sample application (§5, "Sample Application"): readers for
//! edge lists, Matrix Market `coordinate pattern` files and dense .npy adjacency matrices, the
//! 0/1 matrix `M = I + A` the GPU raises to powers, and the CPU breadth-first searches the GPU
//! results are checked against.
//!
//! A graph of n nodes has ids 0..n (edge lists may say 1..=n with `--one-based`). Undirected
//! graphs (the default) put every edge in both directions; self-loops and duplicate edges are
//! accepted and change nothing (M has ones on its diagonal anyway, and entries are 0/1). Readers
//! never panic: a bad line is an [`Error::Format`] naming the line.

use crate::error::{Error, Result};
use crate::io;
use crate::matrix::Matrix;
use rand::{Rng, SeedableRng, rngs::StdRng};
use serde::Serialize;
use std::collections::VecDeque;
use std::path::Path;

/// The most nodes a graph may have: the reachability matrix is dense (n² texels), and no
/// adapter seen so far holds a texture wider than 32768. Larger ids are refused while reading,
/// before anything of size n² is allocated.
pub const MAX_NODES: usize = 1 << 15;

/// A graph: `nodes` nodes and the edges as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub nodes: usize,
    /// Edges `(u, v)`, both below `nodes`; duplicates and self-loops kept as read.
    pub edges: Vec<(usize, usize)>,
    /// Whether an edge u→v leaves v→u out. Undirected graphs use each edge both ways.
    pub directed: bool,
}

/// How to read a graph file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Keep edges one-way (u → v); otherwise each edge goes both ways.
    pub directed: bool,
    /// Edge lists: ids start at 1 (1..=n) instead of 0.
    pub one_based: bool,
    /// Edge lists: the number of nodes, so that isolated nodes past the largest id count and ids
    /// at or past it are errors; otherwise the largest id decides.
    pub nodes: Option<usize>,
}

impl Graph {
    /// A graph from edges, each id checked against `nodes`.
    pub fn new(nodes: usize, edges: Vec<(usize, usize)>, directed: bool) -> Result<Self> {
        check_node_count(nodes)?;
        if let Some(&(u, v)) = edges.iter().find(|&&(u, v)| u >= nodes || v >= nodes) {
            return Err(Error::Invalid(format!(
                "edge ({u}, {v}) names a node outside 0..{nodes}"
            )));
        }
        Ok(Self {
            nodes,
            edges,
            directed,
        })
    }

    /// The 0/1 adjacency matrix A (symmetric unless directed): `A[u][v] = 1` for an edge u → v.
    pub fn adjacency(&self) -> Matrix {
        let n = self.nodes;
        let mut a = Matrix::zeros(n, n);
        for &(u, v) in &self.edges {
            a.set(u, v, 1.0);
            if !self.directed {
                a.set(v, u, 1.0);
            }
        }
        a
    }

    /// `M = I + A` with entries clamped to 0/1: `M^p[u][v] ≠ 0` exactly when v is reachable from
    /// u in at most p steps (the identity lets a walk wait in place, so the power sums every
    /// shorter power, as the paper's "adding matrices of all powers less than and equal to p").
    pub fn reach_base(&self) -> Matrix {
        let mut m = self.adjacency();
        for i in 0..self.nodes {
            m.set(i, i, 1.0);
        }
        m
    }

    /// Out-neighbours of every node, sorted and without duplicates (both ways if undirected).
    pub fn neighbours(&self) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); self.nodes];
        for &(u, v) in &self.edges {
            adj[u].push(v);
            if !self.directed {
                adj[v].push(u);
            }
        }
        for list in &mut adj {
            list.sort_unstable();
            list.dedup();
        }
        adj
    }

    /// A random graph of `nodes` nodes and `edges` edges drawn uniformly (duplicates possible),
    /// from a seeded generator so runs can be replayed.
    pub fn random(nodes: usize, edges: usize, directed: bool, seed: u64) -> Result<Self> {
        check_node_count(nodes)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let list = if nodes == 0 {
            vec![]
        } else {
            (0..edges)
                .map(|_| (rng.random_range(0..nodes), rng.random_range(0..nodes)))
                .collect()
        };
        Graph::new(nodes, list, directed)
    }
}

fn check_node_count(nodes: usize) -> Result<()> {
    if nodes > MAX_NODES {
        return Err(Error::Invalid(format!(
            "{nodes} nodes: rendermm holds a graph as a dense {nodes}x{nodes} matrix, at most {MAX_NODES} nodes"
        )));
    }
    Ok(())
}

/// Read a graph, choosing the format by extension: `.npy` (a dense square adjacency matrix,
/// nonzero = edge), `.mtx` (Matrix Market, e.g. `coordinate pattern`; nonzero = edge), anything
/// else an edge list (`u v` per line, `#` or `%` comments, whitespace or comma separated).
pub fn read_graph(path: &Path, opts: ReadOptions) -> Result<Graph> {
    // Options are checked before the file is read, so a wrong flag is named first.
    check_options(path, opts)?;
    let bytes = io::read_input(path)?;
    parse_graph(path, &bytes, opts)
}

/// Whether `path` names a matrix file (.npy, .mtx) rather than an edge list.
fn is_matrix_file(path: &Path) -> Option<&'static str> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("npy") => Some(".npy adjacency matrices have no ids"),
        Some("mtx") => Some("Matrix Market ids are 1-based by definition"),
        _ => None,
    }
}

/// Error if `opts` has edge-list options for a matrix file.
fn check_options(path: &Path, opts: ReadOptions) -> Result<()> {
    if let Some(what) = is_matrix_file(path) {
        if opts.one_based {
            return Err(Error::Invalid(format!(
                "--one-based applies to edge lists; {what}"
            )));
        }
        if opts.nodes.is_some() {
            return Err(Error::Invalid(
                "--nodes applies to edge lists; a matrix file's shape gives the node count".into(),
            ));
        }
    }
    Ok(())
}

/// Parse a graph held in memory, the format chosen by `path`'s extension as in [`read_graph`]
/// (`path` only names the source in errors). Any bytes give a graph or an error, never a panic:
/// the fuzz targets and property tests feed this.
pub fn parse_graph(path: &Path, bytes: &[u8], opts: ReadOptions) -> Result<Graph> {
    check_options(path, opts)?;
    match is_matrix_file(path) {
        Some(_) => from_matrix(path, &io::parse_matrix(path, bytes)?, opts.directed),
        None => parse_edge_list_bytes(path, bytes, opts),
    }
}

/// [`parse_edge_list`] on raw bytes, which must be UTF-8 text.
pub fn parse_edge_list_bytes(path: &Path, bytes: &[u8], opts: ReadOptions) -> Result<Graph> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        Error::format(
            path,
            format!("line {line}: not valid UTF-8 text (is this an edge list?)"),
        )
    })?;
    parse_edge_list(path, text, opts)
}

/// A graph from a square adjacency matrix: an edge u → v wherever `m[u][v]` is nonzero.
pub fn from_matrix(path: &Path, m: &Matrix, directed: bool) -> Result<Graph> {
    if m.rows != m.cols {
        return Err(Error::format(
            path,
            format!(
                "an adjacency matrix must be square, this one is {}x{}",
                m.rows, m.cols
            ),
        ));
    }
    if m.rows > MAX_NODES {
        return Err(Error::format(
            path,
            format!("{} nodes; rendermm holds at most {MAX_NODES}", m.rows),
        ));
    }
    if let Some(idx) = m.data.iter().position(|v| !v.is_finite()) {
        return Err(Error::format(
            path,
            format!(
                "entry ({}, {}) is {}, not a number; use 0 for no edge",
                idx / m.cols,
                idx % m.cols,
                m.data[idx]
            ),
        ));
    }
    let edges = (0..m.rows)
        .flat_map(|u| (0..m.cols).map(move |v| (u, v)))
        .filter(|&(u, v)| m.get(u, v) != 0.0)
        .collect();
    Graph::new(m.rows, edges, directed)
}

/// Parse an edge list: one edge `u v` per line (whitespace or a comma between), blank lines and
/// comments (`#` or `%` to the end of the line) skipped.
pub fn parse_edge_list(path: &Path, text: &str, opts: ReadOptions) -> Result<Graph> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(n) = opts.nodes {
        check_node_count(n)?;
    }
    let first = usize::from(opts.one_based);
    let mut edges = Vec::new();
    let mut largest: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = |msg: String| Error::format(path, format!("line {line_no}: {msg}"));
        let content = raw.split(['#', '%']).next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fields: Vec<&str> = content
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|f| !f.is_empty())
            .collect();
        if fields.len() != 2 {
            return Err(at(format!(
                "expected two node ids `u v`, found {} field(s) in {}",
                fields.len(),
                io::snippet(content)
            )));
        }
        let mut ids = [0usize; 2];
        for (slot, field) in ids.iter_mut().zip(&fields) {
            // `None`: past u64, and so past any node count.
            let id = parse_id(field).map_err(&at)?;
            if id.is_some_and(|id| id < first as u64) {
                return Err(at(
                    "node id 0 is out of range: with --one-based ids start at 1".into(),
                ));
            }
            let limit = opts.nodes.unwrap_or(MAX_NODES) as u64;
            let index = id.map(|id| id - first as u64).filter(|&i| i < limit);
            let Some(index) = index else {
                // The id as written, not as parsed: one past u64 must not read as u64::MAX.
                let id = as_written(field);
                // limit ≥ 1 in the arms that print a range (Some(0) has its own message).
                let range = format!("{}..={}", first, (limit as usize + first).saturating_sub(1));
                return Err(at(match opts.nodes {
                    Some(0) => format!("node id {id} is out of range: --nodes 0 allows no nodes"),
                    Some(n) => {
                        format!("node id {id} is out of range: --nodes {n} allows ids {range}")
                    }
                    None => format!(
                        "node id {id} is out of range: rendermm holds graphs of at most {MAX_NODES} nodes (ids {range})"
                    ),
                }));
            };
            *slot = index as usize;
        }
        largest = largest.max(Some(ids[0].max(ids[1])));
        edges.push((ids[0], ids[1]));
    }
    let nodes = opts.nodes.unwrap_or(largest.map_or(0, |l| l + 1));
    Graph::new(nodes, edges, opts.directed)
}

/// A node id as the file writes it, shortened to 40 characters (with its digit count) if longer.
fn as_written(field: &str) -> String {
    const MAX: usize = 40;
    match field.get(..MAX) {
        Some(head) if field.len() > MAX => format!("{head}… ({} characters)", field.len()),
        _ => field.to_string(),
    }
}

/// A node id: a whole number; `None` if it is past u64 (and so out of range of any graph).
fn parse_id(field: &str) -> std::result::Result<Option<u64>, String> {
    let digits = field.strip_prefix('+').unwrap_or(field);
    if let Some(rest) = field.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(format!(
            "node id {field} is out of range: ids are not negative"
        ));
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{} is not a node id (a whole number)",
            io::snippet(field)
        ));
    }
    // All digits: the only way to fail is to be past u64.
    Ok(digits.parse::<u64>().ok())
}

/// Connected components: a label per node and the size of each component. Components are
/// numbered 0, 1, … in the order of their smallest node, so two runs that agree on the
/// partition agree on the labels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Components {
    /// `labels[v]`: the component of node v.
    pub labels: Vec<usize>,
    /// `sizes[c]`: the number of nodes in component c.
    pub sizes: Vec<usize>,
}

impl Components {
    /// The number of components (0 for an empty graph).
    pub fn count(&self) -> usize {
        self.sizes.len()
    }

    /// Components from `root[v]`, any node of v's component that all its members agree on.
    fn from_roots(root: &[usize]) -> Self {
        let mut number = vec![usize::MAX; root.len()];
        let mut labels = Vec::with_capacity(root.len());
        let mut sizes = Vec::new();
        for &r in root {
            if number[r] == usize::MAX {
                number[r] = sizes.len();
                sizes.push(0);
            }
            labels.push(number[r]);
            sizes[number[r]] += 1;
        }
        Self { labels, sizes }
    }

    /// Components from the transitive closure R of `M = I + A` (a reflexive 0/1 matrix): u and
    /// v share a component when each reaches the other, `R[u][v] = R[v][u] = 1`. For an
    /// undirected graph R is symmetric and these are the connected components; for a directed
    /// one, the strongly connected components.
    pub fn from_closure(r: &Matrix) -> Result<Self> {
        if r.rows != r.cols {
            return Err(Error::Invalid(format!(
                "a closure is square, this one is {}x{}",
                r.rows, r.cols
            )));
        }
        Ok(Self::mutual(r))
    }

    /// [`Components::from_closure`] of the top-left square of `r` (all of a square `r`).
    fn mutual(r: &Matrix) -> Self {
        let n = r.rows.min(r.cols);
        let root: Vec<usize> = (0..n)
            .map(|u| {
                (0..n)
                    .find(|&v| v == u || (r.get(u, v) > 0.5 && r.get(v, u) > 0.5))
                    .unwrap_or(u)
            })
            .collect();
        Self::from_roots(&root)
    }
}

/// Breadth-first search from `source`: the distance to every node, `None` where unreachable.
pub fn bfs(adj: &[Vec<usize>], source: usize) -> Vec<Option<usize>> {
    let mut dist = vec![None; adj.len()];
    dist[source] = Some(0);
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let d = dist[u].unwrap_or(0);
        for &v in &adj[u] {
            if dist[v].is_none() {
                dist[v] = Some(d + 1);
                queue.push_back(v);
            }
        }
    }
    dist
}

/// The reachability matrix on the CPU, by a BFS from every node: `R[u][v] = 1` when v is at
/// most `steps` edges from u (any distance if `steps` is `None`, the transitive closure).
pub fn cpu_reach(g: &Graph, steps: Option<usize>) -> Matrix {
    let adj = g.neighbours();
    let mut r = Matrix::zeros(g.nodes, g.nodes);
    for u in 0..g.nodes {
        for (v, d) in bfs(&adj, u).into_iter().enumerate() {
            if d.is_some_and(|d| steps.is_none_or(|p| d <= p)) {
                r.set(u, v, 1.0);
            }
        }
    }
    r
}

/// Components on the CPU: a BFS labelling for an undirected graph; for a directed one, mutual
/// reachability from a BFS out of every node (strongly connected components).
pub fn cpu_components(g: &Graph) -> Components {
    if g.directed {
        // cpu_reach's closure is nodes × nodes.
        return Components::mutual(&cpu_reach(g, None));
    }
    let adj = g.neighbours();
    let mut root = vec![usize::MAX; g.nodes];
    for s in 0..g.nodes {
        if root[s] != usize::MAX {
            continue;
        }
        for (v, d) in bfs(&adj, s).into_iter().enumerate() {
            if d.is_some() {
                root[v] = s;
            }
        }
    }
    Components::from_roots(&root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, opts: ReadOptions) -> Result<Graph> {
        parse_edge_list(Path::new("g.txt"), text, opts)
    }

    #[test]
    fn edge_list_with_comments_commas_and_one_based_ids() {
        let g = parse(
            "# a path\n1 2\n2,3 # trailing\n\n% also a comment\n3\t4\n",
            ReadOptions {
                one_based: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(g.nodes, 4);
        assert_eq!(g.edges, vec![(0, 1), (1, 2), (2, 3)]);
    }

    #[test]
    fn bad_lines_name_their_line_number() {
        let cases = [
            ("0 1\n1 x\n", "line 2", "not a node id"),
            ("0 1\n\n1 2 3\n", "line 3", "expected two node ids"),
            ("0 -1\n", "line 1", "not negative"),
            ("0 1\n1 99999999999999999999999\n", "line 2", "out of range"),
            ("5\n", "line 1", "found 1 field"),
        ];
        for (text, line, what) in cases {
            let e = parse(text, ReadOptions::default()).unwrap_err().to_string();
            assert!(e.contains(line) && e.contains(what), "{text:?}: {e}");
        }
        let e = parse(
            "0 1\n",
            ReadOptions {
                one_based: true,
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 1") && e.contains("start at 1"), "{e}");
        let e = parse(
            "0 1\n1 3\n",
            ReadOptions {
                nodes: Some(3),
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 2") && e.contains("--nodes 3"), "{e}");
    }

    #[test]
    fn closure_components_match_bfs_components() {
        let g = Graph::new(7, vec![(0, 1), (1, 2), (4, 5), (6, 6)], false).unwrap();
        let c = cpu_components(&g);
        assert_eq!(c.labels, vec![0, 0, 0, 1, 2, 2, 3]);
        assert_eq!(c.sizes, vec![3, 1, 2, 1]);
        assert_eq!(Components::from_closure(&cpu_reach(&g, None)).unwrap(), c);
    }
}
