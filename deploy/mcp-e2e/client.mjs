// An MCP client nobody on the team wrote: the official TypeScript SDK (@modelcontextprotocol/sdk, pinned by
// package-lock.json), driven by McpIT against the local stack. It discovers the sign-in the way the MCP authorization
// specification says (401, the protected resource metadata, the authorization server's metadata, code flow with PKCE),
// signs in once as a person would at the identity provider's login form, and then works through MCP only.
//
// Usage: node client.mjs <mcp url> <client> <username> <password> <redirect port> propose
//        node client.mjs <mcp url> <client> <username> <password> <redirect port> outcome <action id>  (its resource and action_status)
// <client> is a client id registered at the identity provider, or `register`: the SDK registers itself (dynamic client
// registration, RFC 7591) at the registration endpoint the authorization server's metadata names.
// Prints one JSON object on stdout: what the test asserts. Diagnostics go to stderr; no token is ever printed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [mcpUrl, clientId, username, password, redirectPort, command, ...rest] = process.argv.slice(2);
const redirectUrl = `http://127.0.0.1:${redirectPort}/callback`;

/** Whether the person was asked to agree on a consent screen. */
let consented = false;

/** Keycloak's login form, filled as a person would; answers the authorization code it sends the browser back with. */
async function signIn(authorizationUrl) {
  const cookies = new Map();
  const visit = async (url, options = {}) => {
    const headers = { ...(options.headers ?? {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const response = await fetch(url, { ...options, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(';')[0];
      const equals = pair.indexOf('=');
      cookies.set(pair.slice(0, equals), pair.slice(equals + 1));
    }
    return response;
  };
  let response = await visit(authorizationUrl);
  let url = new URL(authorizationUrl);
  while (response.status >= 300 && response.status < 400) {
    url = new URL(response.headers.get('location'), url);
    response = await visit(url);
  }
  const page = await response.text();
  const form = page.match(/<form[^>]*id="kc-form-login"[^>]*>/);
  if (!form) {
    throw new Error(`no login form at the identity provider (HTTP ${response.status})`);
  }
  const action = form[0].match(/action="([^"]+)"/)[1].replaceAll('&amp;', '&');
  response = await visit(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password, credentialId: '' }),
  });
  // Keycloak may first send the browser to its consent screen (a required action), for a client that registered
  // itself: the person agrees there.
  for (let step = 0; step < 4; step++) {
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get('location'), url);
      if (next.toString().startsWith(redirectUrl)) {
        break;
      }
      url = next;
      response = await visit(url);
      continue;
    }
    const consent = (await response.text()).match(
      /<form[^>]*action="([^"]+)"[^>]*>\s*<input type="hidden" name="code" value="([^"]+)"/);
    if (!consent) {
      throw new Error(`neither a redirect nor a consent screen after signing in (HTTP ${response.status})`);
    }
    consented = true;
    response = await visit(new URL(consent[1].replaceAll('&amp;', '&'), url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code: consent[2], accept: 'Yes' }),
    });
  }
  const back = response.headers.get('location');
  if (!back || !back.startsWith(redirectUrl)) {
    throw new Error(`the identity provider did not send the browser back to the client (HTTP ${response.status})`);
  }
  const code = new URL(back).searchParams.get('code');
  if (!code) {
    throw new Error(`the identity provider sent no code: ${new URL(back).searchParams.get('error')}`);
  }
  return code;
}

/** In memory, for one run: the client's registration, its PKCE verifier and its tokens. */
class Provider {
  constructor() {
    this.signIns = 0;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: 'countersign-mcp-e2e',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return clientId === 'register' ? this.registered : { client_id: clientId };
  }
  saveClientInformation(information) {
    this.registered = information;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens) {
    this.savedTokens = tokens;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    this.signIns++;
    this.code = await signIn(authorizationUrl.toString());
  }
}

async function connect(provider) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const client = new Client({ name: 'countersign-mcp-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    try {
      await client.connect(transport);
      return client;
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !provider.code) {
        throw error;
      }
      await transport.finishAuth(provider.code);
      provider.code = undefined;
    }
  }
  throw new Error('still unauthorized after signing in');
}

function text(result) {
  return result.content.filter(part => part.type === 'text').map(part => part.text).join('\n');
}

const provider = new Provider();
const client = await connect(provider);
const output = { signIns: provider.signIns, consented, clientId: provider.clientInformation().client_id };
if (command === 'propose') {
  const { tools } = await client.listTools();
  output.tools = tools.map(tool => ({ name: tool.name, annotations: tool.annotations, meta: tool._meta }));
  output.wallets = text(await client.callTool({ name: 'list_wallets', arguments: {} }));
  const proposed = await client.callTool({
    name: 'propose_expense',
    arguments: { wallet: 'Checking', amount: '12.50', category: 'coffee', description: 'through the TypeScript SDK' },
  });
  output.proposal = { isError: proposed.isError ?? false, text: text(proposed), structured: proposed.structuredContent };
} else if (command === 'outcome') {
  // The resource a proposal's answer named, and the status tool: each tells the action's outcome.
  const { resourceTemplates } = await client.listResourceTemplates();
  output.resourceTemplates = resourceTemplates.map(template => template.uriTemplate);
  const read = await client.readResource({ uri: `countersign://actions/${rest[0]}` });
  output.resource = read.contents.map(content => content.text).join('\n');
  output.outcome = text(await client.callTool({ name: 'action_status', arguments: { actionId: rest[0] } }));
  output.action = rest[0];
} else {
  throw new Error(`unknown command ${command}`);
}
await client.close();
process.stdout.write(JSON.stringify(output) + '\n');
