// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Test-only contracts for the ENS test chain of node.ts (compiled by build.ts). The ENS registry
// and PublicResolver deployed next to them are ENS's own compiled contracts; these are ours.

interface IEnsRegistry {
    function resolver(bytes32 node) external view returns (address);
}

interface IExtendedResolver {
    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory);
}

/// A Universal Resolver for on-chain resolvers, with the interface and custom errors viem's `getEnsAddress`
/// relies on: `resolveWithGateways(name, data, gateways)`, ENSIP-10 resolver search (nearest ancestor with a
/// resolver; a wildcard needs an extended resolver), resolver reverts wrapped in `ResolverError`, an empty answer
/// reported as `UnsupportedResolverProfile`. It does not follow CCIP-Read: an `OffchainLookup` from a resolver is
/// passed through unchanged (our adapter refuses it either way). `gateways` is ignored.
contract TestUniversalResolver {
    error DNSDecodingFailed(bytes dns);
    error ResolverNotFound(bytes name);
    error ResolverNotContract(bytes name, address resolver);
    error UnsupportedResolverProfile(bytes4 selector);
    error ResolverError(bytes errorData);

    bytes4 private constant EXTENDED_RESOLVER = 0x9061b923; // ENSIP-10 resolve(bytes,bytes)
    bytes4 private constant OFFCHAIN_LOOKUP = 0x556f1830; // EIP-3668

    IEnsRegistry public immutable registry;

    constructor(IEnsRegistry ensRegistry) {
        registry = ensRegistry;
    }

    function resolveWithGateways(bytes calldata name, bytes calldata data, string[] calldata)
        external
        view
        returns (bytes memory, address)
    {
        (address resolver, uint256 offset) = findResolver(name);
        if (resolver == address(0)) revert ResolverNotFound(name);
        bool extended = supportsInterface(resolver, EXTENDED_RESOLVER);
        if (!extended && offset != 0) revert ResolverNotFound(name); // an exact match is needed without ENSIP-10
        if (!extended && resolver.code.length == 0) revert ResolverNotContract(name, resolver);

        (bool ok, bytes memory answer) =
            resolver.staticcall(extended ? abi.encodeCall(IExtendedResolver.resolve, (name, data)) : data);
        if (!ok) {
            bytes4 selector = answer.length >= 4 ? bytes4(answer) : bytes4(0);
            if (selector == OFFCHAIN_LOOKUP || selector == UnsupportedResolverProfile.selector) {
                assembly {
                    revert(add(answer, 32), mload(answer))
                }
            }
            revert ResolverError(answer);
        }
        if (answer.length == 0) revert UnsupportedResolverProfile(bytes4(data));
        if (extended) answer = abi.decode(answer, (bytes));
        return (answer, resolver);
    }

    /// ENSIP-10: the resolver of the name itself or of its nearest ancestor, and the byte offset of that suffix.
    function findResolver(bytes calldata name) public view returns (address, uint256) {
        uint256[] memory labelOffsets = new uint256[](name.length);
        uint256 labels;
        uint256 i;
        while (true) {
            if (i >= name.length) revert DNSDecodingFailed(name);
            uint256 length = uint8(name[i]);
            if (length == 0) break;
            labelOffsets[labels++] = i;
            i += length + 1;
        }
        if (i != name.length - 1) revert DNSDecodingFailed(name);
        bytes32[] memory nodes = new bytes32[](labels + 1); // nodes[labels] is the root
        for (uint256 k = labels; k > 0; k--) {
            uint256 labelAt = labelOffsets[k - 1];
            bytes32 labelHash = keccak256(name[labelAt + 1:labelAt + 1 + uint8(name[labelAt])]);
            nodes[k - 1] = keccak256(abi.encodePacked(nodes[k], labelHash));
        }
        for (uint256 k = 0; k < labels; k++) {
            address resolver = registry.resolver(nodes[k]);
            if (resolver != address(0)) return (resolver, labelOffsets[k]);
        }
        return (address(0), 0);
    }

    /// ERC-165 probe that treats a revert, a short answer or no code as "no".
    function supportsInterface(address target, bytes4 interfaceId) private view returns (bool) {
        (bool ok, bytes memory answer) =
            target.staticcall{gas: 30000}(abi.encodeWithSelector(0x01ffc9a7, interfaceId));
        return ok && answer.length >= 32 && abi.decode(answer, (bool));
    }
}

/// A broken resolver: every call reverts.
contract RevertingResolver {
    error Broken();

    fallback() external {
        revert Broken();
    }
}

/// An old resolver: `addr(bytes32)` only; any other profile succeeds with no data.
contract LegacyAddrResolver {
    address private immutable ethAddress;

    constructor(address ethAddress_) {
        ethAddress = ethAddress_;
    }

    function addr(bytes32) external view returns (address) {
        return ethAddress;
    }

    fallback() external {}
}

/// An ENSIP-10 resolver whose records live off chain: every `resolve` reverts with EIP-3668 `OffchainLookup`.
contract OffchainResolver {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x9061b923;
    }

    function resolve(bytes calldata, bytes calldata data) external view returns (bytes memory) {
        string[] memory urls = new string[](1);
        urls[0] = "https://gateway.invalid/{sender}/{data}.json";
        revert OffchainLookup(address(this), urls, data, this.resolveCallback.selector, data);
    }

    function resolveCallback(bytes calldata response, bytes calldata) external pure returns (bytes memory) {
        return response;
    }
}
