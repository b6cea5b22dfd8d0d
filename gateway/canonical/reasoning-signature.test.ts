import {
  openReasoning,
  openSignature,
  reasoningPartFrom,
  sealReasoning,
  sealSignature,
} from './reasoning-signature';

describe('sealed reasoning signatures', () => {
  it('open to their maker and the original, whatever the original holds', () => {
    const original = 'EqQB:Cg/IYAh+IM==';
    expect(sealSignature('ant.eu-1', original)).toBe('gw1:ant.eu-1:EqQB:Cg/IYAh+IM==');
    expect(openSignature(sealSignature('ant.eu-1', original))).toEqual({
      providerId: 'ant.eu-1',
      signature: original,
    });
  });

  it.each(['EqQBCgIYAhIM', 'gw1:', 'gw1::abc', 'gw1:ant:', 'gw2:ant:abc'])(
    'do not open %j, which the gateway did not seal',
    (value) => {
      expect(openSignature(value)).toBeNull();
    },
  );

  it('make reasoning parts that name their maker, or carry only the text', () => {
    expect(reasoningPartFrom('thought', 'gw1:gem:c2ln')).toEqual({
      type: 'reasoning',
      text: 'thought',
      signature: 'c2ln',
      providerId: 'gem',
    });
    expect(reasoningPartFrom('', undefined, 'gw1:ant:ZGF0YQ')).toEqual({
      type: 'reasoning',
      text: '',
      encrypted: 'ZGF0YQ',
      providerId: 'ant',
    });
    expect(reasoningPartFrom('thought', 'raw-from-elsewhere')).toEqual({
      type: 'reasoning',
      text: 'thought',
    });
  });
});

describe('whole reasoning blocks sealed in one string', () => {
  it('open to the block as it was made, its own text over what the client sent', () => {
    const sealed = sealReasoning(
      { text: 'Let me think… ünïcode', signature: 'gw1:ant:c2ln' },
      'key_1',
    );
    expect(sealed).toMatch(/^gwr1:[A-Za-z0-9_-]+$/);
    expect(openReasoning(sealed)).toEqual({
      text: 'Let me think… ünïcode',
      signature: 'gw1:ant:c2ln',
      keyId: 'key_1',
    });
    expect(reasoningPartFrom('', undefined, sealed)).toEqual({
      type: 'reasoning',
      text: 'Let me think… ünïcode',
      signature: 'c2ln',
      providerId: 'ant',
      keyId: 'key_1',
    });
    expect(reasoningPartFrom('summary the client kept', sealed)).toMatchObject({
      text: 'Let me think… ünïcode',
    });
  });

  it('carry encrypted reasoning, and no key when none was given', () => {
    const sealed = sealReasoning({ text: '', encrypted: 'gw1:oai:gAAAA' }, undefined);
    expect(reasoningPartFrom('', undefined, sealed)).toEqual({
      type: 'reasoning',
      text: '',
      encrypted: 'gAAAA',
      providerId: 'oai',
    });
  });

  it.each(['gwr1:', 'gwr1:not-json', `gwr1:${Buffer.from('{"s":"x"}').toString('base64url')}`])(
    'do not open %j',
    (value) => {
      expect(openReasoning(value)).toBeNull();
      expect(reasoningPartFrom('text', undefined, value)).toEqual({
        type: 'reasoning',
        text: 'text',
      });
    },
  );
});
