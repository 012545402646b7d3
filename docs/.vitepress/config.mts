/**
 * The sparsedyn guide, built by VitePress (`npm run docs`: TypeDoc writes the API pages into
 * docs/api/ first, then VitePress builds the site into docs/.vitepress/dist/, both git-ignored).
 * Offline: no fonts, scripts or search service from the network (local search).
 */
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'sparsedyn',
  description: 'Rigid-body dynamics as one sparse linear system, and joint torques and contact wrenches estimated from robot logs',
  lang: 'en',
  // docs/api.md is the API's front page, which TypeDoc copies into docs/api/index.md
  srcExclude: ['api.md', '**/README.md'],
  lastUpdated: false,
  markdown: { lineNumbers: false },
  vite: { build: { chunkSizeWarningLimit: 4000 } },
  themeConfig: {
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Tutorial', link: '/guide/tutorial' },
      { text: 'How-to', link: '/how-to/robot-logs' },
      { text: 'Reference', link: '/reference/' },
      { text: 'Concepts', link: '/concepts/formulation' },
      { text: 'Lab notebook', link: '/lab/' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Getting started', link: '/guide/' },
          { text: 'Your robot in 15 minutes', link: '/guide/tutorial' },
          { text: 'A tour of the commands', link: '/guide/commands' },
          { text: 'Estimation: problems, logs, estimates', link: '/guide/estimation' },
          { text: 'Robot models', link: '/guide/robot-models' },
          { text: 'Using sparsedyn from code', link: '/guide/library' },
        ],
      },
      {
        text: 'How-to',
        items: [
          { text: 'Logs as robots record them', link: '/how-to/robot-logs' },
          { text: 'ROS 2 bags', link: '/how-to/ros2-bags' },
          { text: 'Contact modes and missing readings', link: '/how-to/contact-modes' },
          { text: 'Priors and soft constraints', link: '/how-to/priors' },
          { text: 'Bad data: which sensor is wrong', link: '/how-to/bad-data' },
          { text: 'Scaling out', link: '/how-to/scaling-out' },
          { text: 'A fleet on a Dask cluster', link: '/how-to/dask' },
          { text: 'The sensor-layout playground', link: '/how-to/playground' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Overview', link: '/reference/' },
          { text: 'Problem file', link: '/reference/problem-file' },
          { text: 'Log formats', link: '/reference/log-formats' },
          { text: 'Estimates', link: '/reference/estimates' },
          { text: 'Command line', link: '/reference/cli' },
          { text: 'Model warnings', link: '/reference/warnings' },
          { text: 'Exit codes and errors', link: '/reference/exit-codes' },
          { text: 'State and input files', link: '/reference/state-files' },
          { text: 'Inputs accepted and refused', link: '/inputs' },
          { text: 'API (TypeDoc)', link: '/api/' },
        ],
      },
      {
        text: 'Concepts',
        items: [
          { text: "Nori's formulation", link: '/concepts/formulation' },
          { text: 'Well-posedness', link: '/concepts/well-posedness' },
          { text: 'MAP estimation', link: '/concepts/map-estimation' },
          { text: 'The condition figure', link: '/concepts/condition' },
          { text: 'Conventions and glossary', link: '/concepts/conventions' },
          { text: 'Layout of the code', link: '/concepts/code-layout' },
        ],
      },
      {
        text: 'Lab notebook',
        collapsed: true,
        items: [
          { text: 'Overview', link: '/lab/' },
          { text: "Nori's figures reproduced", link: '/lab/reproduction' },
          { text: 'Time of the sparse path', link: '/lab/sparse-path-time' },
          { text: 'Accuracy on badly conditioned robots', link: '/lab/accuracy' },
          { text: 'Derivatives', link: '/lab/derivatives' },
          { text: 'Cost of estimate, end to end', link: '/lab/estimate-cost' },
          { text: 'Benchmarks', link: '/lab/benchmarks' },
          { text: 'Studies', link: '/lab/studies' },
        ],
      },
    ],
  },
});
