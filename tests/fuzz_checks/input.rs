//! Reading a fuzzer input as a few header bytes, then a body cut at chosen points.

/// The most split points one input may choose.
const MAX_SPLITS: usize = 16;

/// An input read as `[count, position.., body..]`: `count % 17` split points, each a
/// byte giving a position in the body as a fraction of its length.
pub(crate) struct Split<'a> {
    /// Where to cut, sorted, as byte offsets into the body (not yet on char boundaries).
    pub(crate) cuts: Vec<usize>,
    /// The rest of the input.
    pub(crate) body: &'a [u8],
}

impl<'a> Split<'a> {
    /// Read `data`; missing bytes count as zero.
    pub(crate) fn read(data: &'a [u8]) -> Self {
        let count = data
            .first()
            .map_or(0, |n| usize::from(*n) % (MAX_SPLITS + 1));
        let positions = data.get(1..).unwrap_or_default();
        let positions = &positions[..count.min(positions.len())];
        let body = &data[(1 + positions.len()).min(data.len())..];
        let mut cuts: Vec<usize> = positions
            .iter()
            .map(|at| usize::from(*at) * body.len() / 255)
            .collect();
        cuts.sort_unstable();
        Self { cuts, body }
    }

    /// The body's bytes in pieces at the cuts (some pieces may be empty).
    pub(crate) fn byte_pieces(&self) -> Vec<&'a [u8]> {
        pieces(self.body.len(), &self.cuts)
            .map(|(start, end)| &self.body[start..end])
            .collect()
    }
}

/// `text` in pieces at `cuts`, each cut moved back to a char boundary.
pub(crate) fn text_pieces<'t>(text: &'t str, cuts: &[usize]) -> Vec<&'t str> {
    let cuts: Vec<usize> = cuts
        .iter()
        .map(|&at| {
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .collect();
    pieces(text.len(), &cuts)
        .map(|(start, end)| &text[start..end])
        .collect()
}

/// `(start, end)` of each piece of `len` bytes cut at the sorted `cuts`.
fn pieces(len: usize, cuts: &[usize]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let starts = std::iter::once(0).chain(cuts.iter().copied());
    let ends = cuts.iter().copied().chain(std::iter::once(len));
    starts.zip(ends).map(|(start, end)| (start, end.max(start)))
}
