// Sphinx's search shows a snippet of each page it finds, taken from the element with
// role="main". In this theme that is the whole <main>, toolbar included, so every snippet read
// "....ipynb" (the download button). Take the snippet from the page's article instead.
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined") return;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    const article = page.querySelector("article.bd-article") || page.body;
    article.querySelectorAll(".headerlink, script, style").forEach((node) => node.remove());
    const part = anchor ? article.querySelector(anchor) : null;
    return (part || article).textContent.replace(/\s+/g, " ");
  };
});
